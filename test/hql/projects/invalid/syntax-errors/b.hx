QUERY strings() =>
    u <- N<User>::WHERE(_::{name}::EQ("bad \q escape"))
    RETURN u
