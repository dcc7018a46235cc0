N::User { INDEX name: String, age: U8, email: String }
N::Post { title: String }
E::Wrote { From: User, To: Post }
