N::Person {
    name: String,
    bio: String,
}

V::Memory {
    content: String,
}

E::Remembers {
    From: Person,
    To: Memory,
}
