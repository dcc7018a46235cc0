QUERY addUser(name: String, age: U8, email: String) =>
    user <- AddN<User>({name: name, age: age, email: email})
    RETURN user

QUERY follow(from: ID, to: ID, since: I64) =>
    edge <- AddE<Follows>({since: since})::From(from)::To(to)
    RETURN edge

QUERY addPost(author: ID, title: String) =>
    post <- AddN<Post>({title: title})
    AddE<Created>::From(author)::To(post)
    RETURN post

QUERY getUser(id: ID) =>
    user <- N<User>(id)
    RETURN user

QUERY users() =>
    users <- N<User>
    RETURN users

QUERY userNames() =>
    names <- N<User>::{name}
    RETURN names

QUERY followers(id: ID) =>
    followers <- N<User>(id)::In<Follows>
    RETURN followers

QUERY adults(min: U8) =>
    adults <- N<User>::WHERE(_::{age}::GTE(min))::ORDER<Desc>(_::{age})::{name, age}
    RETURN adults

QUERY countUsers() =>
    n <- N<User>::COUNT
    RETURN n

QUERY countPosts() =>
    n <- N<Post>::COUNT
    RETURN n

QUERY page(start: I64, end: I64) =>
    users <- N<User>::ORDER<Asc>(_::{name})::RANGE(start, end)::{userName: name, ID}
    RETURN users

QUERY byAge() =>
    groups <- N<User>::GROUP_BY(age)
    RETURN groups

QUERY byAgeFull() =>
    groups <- N<User>::AGGREGATE_BY(age)
    RETURN groups

QUERY byAgeAndName() =>
    groups <- N<User>::GROUP_BY(age, name)
    RETURN groups

QUERY explicitCards() =>
    cards <- N<User>::RANGE(0, 2)::{who: _::{name}, key: _::ID}
    RETURN cards

QUERY withoutEmail() =>
    users <- N<User>::!{email, created_at}
    RETURN users

QUERY rename(id: ID, name: String) =>
    user <- N<User>(id)::UPDATE({name: name})
    RETURN user

QUERY remove(id: ID) =>
    DROP N<User>(id)
    RETURN "removed"

#[mcp]
QUERY userByName(name: String) =>
    user <- N<User>({name: name})
    RETURN user

QUERY popular() =>
    users <- N<User>::WHERE(_::In<Follows>::COUNT::GTE(2))::{name, followers: _::In<Follows>::COUNT}
    RETURN users

QUERY withPosts() =>
    users <- N<User>::WHERE(EXISTS(_::Out<Created>))::|u|{name: u::{name}, posts: u::Out<Created>::{title}}
    RETURN users

QUERY followerChains(name: String) =>
    user <- N<User>({name: name})::|u|{name, followers: _::In<Follows>::|f|{fan: f::{name}, of: u::{name}, ofId: u::ID, theirs: _::In<Follows>::|g|{who: g::{name}, via: f::{name}, viaAge: f::{age}, root: u::{name}}}}
    RETURN user

QUERY getFollow(id: ID) =>
    edge <- E<Follows>(id)
    RETURN edge

QUERY joinedBefore(when: Date) =>
    users <- N<User>::WHERE(_::{created_at}::LT(when))::{name}
    RETURN users

QUERY upsertUser(name: String, age: U8) =>
    existing <- N<User>::WHERE(_::{name}::EQ(name))
    user <- existing::UpsertN({name: name, age: age})
    RETURN user

QUERY upsertUserById(id: ID, age: U8) =>
    user <- N<User>(id)::UpsertN({age: age})
    RETURN user

QUERY upsertUsers(users: [{name: String, age: U8}]) =>
    FOR {name, age} IN users {
        existing <- N<User>::WHERE(_::{name}::EQ(name))
        user <- existing::UpsertN({name: name, age: age})
    }
    n <- N<User>::COUNT
    RETURN n

QUERY upsertFollow(from: ID, to: ID, since: I64) =>
    edge <- E<Follows>::UpsertE({since: since})::From(from)::To(to)
    RETURN edge

QUERY upsertFollowOf(from: ID, to: ID, since: I64) =>
    a <- N<User>(from)
    b <- N<User>(to)
    edge <- E<Follows>::UpsertE({since: since})::To(b)::From(a)
    RETURN edge

QUERY countFollows() =>
    n <- E<Follows>::COUNT
    RETURN n
