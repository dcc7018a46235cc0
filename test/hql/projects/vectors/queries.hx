QUERY addUser(name: String) =>
    user <- AddN<User>({name: name})
    RETURN user

QUERY addDoc(vec: [F64], title: String, body: String) =>
    doc <- AddV<Doc>(vec, {title: title, body: body})
    RETURN doc

QUERY addDocLiteral(title: String) =>
    doc <- AddV<Doc>([0.0, 0.0, 1.0], {title: title, body: "literal"})
    RETURN doc

QUERY addDocs(docs: [{vector: [F64], title: String, body: String}]) =>
    added <- BatchAddV<Doc>(docs)
    RETURN added

QUERY wrote(user: ID, doc: ID, at: I32) =>
    edge <- AddE<Wrote>({at: at})::From(user)::To(doc)
    RETURN edge

QUERY cites(doc: ID, user: ID) =>
    edge <- AddE<Cites>::From(doc)::To(user)
    RETURN edge

QUERY getDoc(id: ID) =>
    doc <- V<Doc>(id)
    RETURN doc

QUERY docData(id: ID) =>
    doc <- V<Doc>(id)
    RETURN doc::{title, data}

QUERY allDocs() =>
    docs <- V<Doc>
    RETURN docs

QUERY docsOf(user: ID) =>
    docs <- N<User>(user)::Out<Wrote>
    RETURN docs

QUERY authorsOf(doc: ID) =>
    users <- V<Doc>(doc)::In<Wrote>
    RETURN users

QUERY citedBy(doc: ID) =>
    users <- V<Doc>(doc)::Out<Cites>
    RETURN users

QUERY docsByEdges(user: ID) =>
    edges <- N<User>(user)::OutE<Wrote>
    docs <- edges::ToV
    RETURN docs

QUERY writersByEdges(doc: ID) =>
    edges <- V<Doc>(doc)::InE<Wrote>
    users <- edges::FromN
    RETURN users

QUERY search(vec: [F64], k: I64) =>
    docs <- SearchV<Doc>(vec, k)
    RETURN docs

QUERY searchTitles(vec: [F64]) =>
    docs <- SearchV<Doc>(vec, 2)
    RETURN docs::{title, score}

QUERY searchExcept(vec: [F64], k: I64, title: String) =>
    docs <- SearchV<Doc>(vec, k)::PREFILTER(_::{title}::NEQ(title))
    RETURN docs

QUERY searchWithin(user: ID, vec: [F64]) =>
    docs <- N<User>(user)::Out<Wrote>::SearchV<Doc>(vec, 1)
    RETURN docs

QUERY searchRange(vec: [F64]) =>
    docs <- SearchV<Doc>(vec, 10)::RANGE(1, 3)
    RETURN docs::{title}

QUERY upsertDoc(title: String, vec: [F64], body: String) =>
    existing <- V<Doc>::WHERE(_::{title}::EQ(title))
    doc <- existing::UpsertV(vec, {title: title, body: body})
    RETURN doc

QUERY dropDoc(id: ID) =>
    DROP V<Doc>(id)
    RETURN "dropped"

QUERY rrf(vec: [F64]) =>
    docs <- SearchV<Doc>(vec, 3)::RerankRRF
    RETURN docs::{title, score}

QUERY rrfK(vec: [F64], k: F64) =>
    docs <- SearchV<Doc>(vec, 3)::RerankRRF(k: k)
    RETURN docs::{title, score}

QUERY mmr(vec: [F64], lambda: F64) =>
    docs <- SearchV<Doc>(vec, 3)::RerankMMR(lambda: lambda, distance: "cosine")
    RETURN docs::{title}

QUERY addArticle(title: String, body: String) =>
    article <- AddN<Article>({title: title, body: body})
    RETURN article

QUERY findArticles(text: String, k: I64) =>
    articles <- SearchBM25<Article>(text, k)
    RETURN articles::{title}

QUERY findArticlesLiteral() =>
    articles <- SearchBM25<Article>("graph", 5)
    RETURN articles::{title}

QUERY hybrid(vec: [F64], text: String) =>
    docs <- SearchHybrid<Doc>(vec, text, 3)
    RETURN docs::{title}

QUERY addCity(name: String, h: F64) =>
    city <- AddN<City>({name: name, h: h})
    RETURN city

QUERY road(from: ID, to: ID, km: F64) =>
    road <- AddE<Road>({km: km})::From(from)::To(to)
    RETURN road

QUERY hops(from: ID, to: ID) =>
    path <- N<City>(from)::ShortestPath<Road>::To(to)
    RETURN path

QUERY pathExists(from: ID, to: ID) =>
    path <- N<City>(from)::ShortestPath<Road>::To(to)
    n <- path::COUNT
    RETURN n

QUERY hopsBFS(from: ID, to: ID) =>
    path <- N<City>(from)::ShortestPathBFS<Road>::To(to)
    RETURN path

QUERY hopsFrom(from: ID, to: ID) =>
    path <- N<City>(to)::ShortestPathBFS<Road>::From(from)
    RETURN path

QUERY shortest(from: ID, to: ID) =>
    path <- N<City>(from)::ShortestPathDijkstras<Road>(_::{km})::To(to)
    RETURN path

QUERY shortestMath(from: ID, to: ID) =>
    path <- N<City>(from)::ShortestPathDijkstras<Road>(ADD(_::{km}, MUL(_::ToN::{h}, 10.0)))::To(to)
    RETURN path

QUERY shortestAStar(from: ID, to: ID) =>
    path <- N<City>(from)::ShortestPathAStar<Road>(_::{km}, "h")::To(to)
    RETURN path

QUERY routes(to: ID) =>
    cities <- N<City>::{name, route: _::ShortestPath<Road>::To(to)}
    RETURN cities

QUERY cheapestFrom(from: ID) =>
    cities <- N<City>::|c|{name, route: c::ShortestPathDijkstras<Road>(_::{km})::From(from)}
    RETURN cities

QUERY onward(to: ID) =>
    cities <- N<City>::{name, next: _::Out<Road>::ShortestPath<Road>::To(to), reaches: EXISTS(_::ShortestPath<Road>::To(to))}
    RETURN cities

QUERY reaching(hub: ID) =>
    c <- N<City>::WHERE(EXISTS(_::ShortestPathBFS<Road>::To(hub)))
    RETURN c::{name}

QUERY cutOff(hub: ID) =>
    c <- N<City>::WHERE(!EXISTS(_::ShortestPathBFS<Road>::To(hub)))
    RETURN c::{name}

QUERY allHops(to: ID) =>
    paths <- N<City>::ShortestPath<Road>::To(to)
    n <- paths::COUNT
    RETURN paths, n
