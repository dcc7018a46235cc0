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

QUERY upsertNOnEdges(title: String) =>
    w <- E<Wrote>::UpsertN({title: title})
    RETURN w

QUERY upsertEOnNodes(a: ID, b: ID) =>
    w <- N<User>::UpsertE({})::From(a)::To(b)
    RETURN w

QUERY upsertUnknownField(name: String) =>
    u <- N<User>::WHERE(_::{name}::EQ(name))::UpsertN({nmae: name})
    RETURN u

QUERY upsertWrongValues(age: String) =>
    u <- N<User>::UpsertN({age: age})
    p <- N<Post>::UpsertN({title: 5})
    RETURN u, p

QUERY upsertThenStep(name: String) =>
    n <- N<User>::UpsertN({name: name})::COUNT
    RETURN n

QUERY upsertWithoutTo(a: ID) =>
    w <- E<Wrote>::UpsertE({})::From(a)
    RETURN w

QUERY upsertFromMany(post: ID) =>
    users <- N<User>
    w <- E<Wrote>::UpsertE({})::From(users)::To(post)
    RETURN w

QUERY upsertInReturn(name: String) =>
    RETURN N<User>::UpsertN({name: name})

QUERY unknownType() =>
    RETURN NONE

QUERY healthz() =>
    RETURN NONE

QUERY trellis_schema() =>
    RETURN NONE

QUERY nestedPath() =>
    everyone <- N<User>::ID
    users <- N<User>::|u|{name, route: _::ShortestPathBFS<Wrote>::To(everyone)}
    RETURN users
