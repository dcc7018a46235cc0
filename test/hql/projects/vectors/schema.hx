// Vectors, text search and weighted roads: the language's search and path constructs.
N::User {
    name: String,
}

V::Doc {
    title: String,
    body: String,
}

E::Wrote {
    From: User,
    To: Doc,
    Properties: {
        at: I32,
    }
}

E::Cites {
    From: Doc,
    To: User,
}

N::Article {
    title: String,
    body: String,
}

N::City {
    name: String,
    h: F64,
}

E::Road {
    From: City,
    To: City,
    Properties: {
        km: F64,
    }
}
