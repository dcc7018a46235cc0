QUERY addAgent(name: String) =>
    agent <- AddN<Agent>({name: name})
    RETURN agent

#[mcp]
QUERY agentByName(name: String) =>
    agent <- N<Agent>({name: name})
    RETURN agent
