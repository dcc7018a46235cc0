/**
 * The sample graph of the first run (docs/explorer.md shows the same statement, and a
 * test checks the two agree): people, the cities they live in, the companies they work
 * for and the projects they contribute to. One CREATE statement, so it is all or nothing.
 */
export const SAMPLE_CYPHER = `CREATE
  (ada:Person {name: 'Ada', born: 1815}), (charles:Person {name: 'Charles', born: 1791}),
  (grace:Person {name: 'Grace', born: 1906}), (alan:Person {name: 'Alan', born: 1912}),
  (edsger:Person {name: 'Edsger', born: 1930}), (barbara:Person {name: 'Barbara', born: 1939}),
  (donald:Person {name: 'Donald', born: 1938}), (frances:Person {name: 'Frances', born: 1932}),
  (ken:Person {name: 'Ken', born: 1943}), (dennis:Person {name: 'Dennis', born: 1941}),
  (margaret:Person {name: 'Margaret', born: 1936}), (tim:Person {name: 'Tim', born: 1955}),
  (london:City {name: 'London', country: 'UK'}), (cambridge:City {name: 'Cambridge', country: 'UK'}),
  (newyork:City {name: 'New York', country: 'US'}), (boston:City {name: 'Boston', country: 'US'}),
  (amsterdam:City {name: 'Amsterdam', country: 'NL'}), (stanford:City {name: 'Stanford', country: 'US'}),
  (engines:Company {name: 'Analytical Engines', founded: 1834}), (labs:Company {name: 'Bell Labs', founded: 1925}),
  (ibm:Company {name: 'IBM', founded: 1911}), (cern:Company {name: 'CERN', founded: 1954}),
  (unix:Project {name: 'Unix', year: 1969}), (cobol:Project {name: 'COBOL', year: 1959}),
  (apollo:Project {name: 'Apollo guidance', year: 1966}), (tex:Project {name: 'TeX', year: 1978}),
  (web:Project {name: 'World Wide Web', year: 1989}), (algol:Project {name: 'ALGOL', year: 1960}),
  (ada)-[:LIVES_IN]->(london), (charles)-[:LIVES_IN]->(london), (grace)-[:LIVES_IN]->(newyork),
  (alan)-[:LIVES_IN]->(cambridge), (edsger)-[:LIVES_IN]->(amsterdam), (barbara)-[:LIVES_IN]->(boston),
  (donald)-[:LIVES_IN]->(stanford), (frances)-[:LIVES_IN]->(newyork), (ken)-[:LIVES_IN]->(newyork),
  (dennis)-[:LIVES_IN]->(newyork), (margaret)-[:LIVES_IN]->(boston), (tim)-[:LIVES_IN]->(london),
  (ada)-[:WORKS_AT {since: 1842}]->(engines), (charles)-[:WORKS_AT {since: 1834}]->(engines),
  (grace)-[:WORKS_AT {since: 1949}]->(ibm), (frances)-[:WORKS_AT {since: 1955}]->(ibm),
  (ken)-[:WORKS_AT {since: 1966}]->(labs), (dennis)-[:WORKS_AT {since: 1967}]->(labs),
  (tim)-[:WORKS_AT {since: 1984}]->(cern),
  (ken)-[:CONTRIBUTED_TO {role: 'author'}]->(unix), (dennis)-[:CONTRIBUTED_TO {role: 'author'}]->(unix),
  (grace)-[:CONTRIBUTED_TO {role: 'designer'}]->(cobol), (margaret)-[:CONTRIBUTED_TO {role: 'lead'}]->(apollo),
  (donald)-[:CONTRIBUTED_TO {role: 'author'}]->(tex), (tim)-[:CONTRIBUTED_TO {role: 'inventor'}]->(web),
  (edsger)-[:CONTRIBUTED_TO {role: 'implementer'}]->(algol), (frances)-[:CONTRIBUTED_TO {role: 'compiler'}]->(algol),
  (ada)-[:KNOWS]->(charles), (alan)-[:KNOWS]->(grace), (edsger)-[:KNOWS]->(donald), (donald)-[:KNOWS]->(barbara),
  (ken)-[:KNOWS]->(dennis), (barbara)-[:KNOWS]->(margaret), (frances)-[:KNOWS]->(grace), (tim)-[:KNOWS]->(alan)`;

/** What the editor holds on a first visit: a statement that draws the sample graph's paths. */
export const EXAMPLE_CYPHER = 'MATCH p = (a:Person)-[r]->(b)\nRETURN p\nLIMIT 100';
