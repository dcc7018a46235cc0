QUERY remember(agent: ID, vector: [F64], content: String) =>
    memory <- AddV<Memory>(vector, {content: content})
    AddE<Recalls>::From(agent)::To(memory)
    RETURN memory

QUERY recall(agent: ID, vector: [F64], k: I64) =>
    memories <- N<Agent>(agent)::Out<Recalls>::SearchV<Memory>(vector, k)
    RETURN memories::{content}

QUERY nearest(vector: [F64], k: I64) =>
    memories <- SearchV<Memory>(vector, k)
    RETURN memories::{content}

QUERY mentions(text: String) =>
    memories <- SearchBM25<Memory>(text, 3)
    RETURN memories::{content}
