N::User {
    name: String,
    Name: String,
    id: ID,
    age: U8 DEFAULT 300,
    born: Date DEFAULT "yesterday",
    tags: [String],
    home: Address,
}

N::User { other: String }

E::Follows {
    From: User,
    To: Ghost,
}

N::Node { x: I32 }
