N::User { name: String }

QUERY broken(id: ID =>
    u <- N<User>(id)
    RETURN u

QUERY alsoBroken() =>
    u <- N<User>::Frobnicate
    RETURN u

QUERY fine() =>
    u <- N<User>
    RETURN u

MIGRATION schema::1 => schema::2 { N::User => _::{ name: } }
