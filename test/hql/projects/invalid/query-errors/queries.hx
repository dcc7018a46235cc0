QUERY unknownType() =>
    u <- N<Usr>
    RETURN u

QUERY unknownField(age: U8) =>
    u <- N<User>::WHERE(_::{agee}::GT(age))
    RETURN u

QUERY wrongStep() =>
    p <- N<Post>::Out<Wrote>
    RETURN p

QUERY wrongValue() =>
    u <- AddN<User>({name: 5, age: 256})
    RETURN u

QUERY undefinedVariable() =>
    RETURN nobody

QUERY twice(id: ID) =>
    u <- N<User>(id)
    u <- N<User>(id)
    RETURN u

QUERY notIndexed(email: String) =>
    u <- N<User>({email: email})
    RETURN u

QUERY noComparison() =>
    u <- N<User>::WHERE(_::Out<Wrote>)
    RETURN u

QUERY negativeRange() =>
    u <- N<User>::RANGE(-1, 10)
    RETURN u

#[mcp]
QUERY twoValues() =>
    a <- N<User>
    b <- N<Post>
    RETURN a, b

QUERY unknownType() =>
    RETURN NONE

QUERY healthz() =>
    RETURN NONE

QUERY trellis_schema() =>
    RETURN NONE
