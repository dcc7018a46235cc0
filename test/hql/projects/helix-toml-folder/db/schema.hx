N::Agent {
    INDEX name: String,
}

V::Memory {
    content: String,
}

E::Recalls {
    From: Agent,
    To: Memory,
}
