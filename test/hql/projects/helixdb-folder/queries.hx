QUERY addPerson(name: String, bio: String) =>
    person <- AddN<Person>({name: name, bio: bio})
    RETURN person

QUERY remember(person: ID, vector: [F64], content: String) =>
    memory <- AddV<Memory>(vector, {content: content})
    AddE<Remembers>::From(person)::To(memory)
    RETURN memory

QUERY recall(person: ID, vector: [F64], k: I64) =>
    memories <- N<Person>(person)::Out<Remembers>::SearchV<Memory>(vector, k)
    RETURN memories::{content}

QUERY findPeople(text: String) =>
    people <- SearchBM25<Person>(text, 5)
    RETURN people::{name}

#[mcp]
QUERY person(id: ID) =>
    person <- N<Person>(id)
    RETURN person

QUERY rememberText(person: ID, content: String) =>
    memory <- AddV<Memory>(Embed(content), {content: content})
    AddE<Remembers>::From(person)::To(memory)
    RETURN memory
