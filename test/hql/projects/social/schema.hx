// A small social network: users follow users and write posts.
N::User {
    INDEX name: String,
    age: U8,
    email: String,
    created_at: Date DEFAULT NOW,
}

N::Post {
    title: String,
    likes: U32 DEFAULT 0,
}

E::Follows {
    From: User,
    To: User,
    Properties: {
        since: I64,
    }
}

E::Created {
    From: User,
    To: Post,
}
