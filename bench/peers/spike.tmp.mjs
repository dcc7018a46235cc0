import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path';
import kuzu from 'kuzu';
import { Surreal } from 'surrealdb';
import { createNodeEngines } from '@surrealdb/node';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'peers-spike-'));
{
  const db = new kuzu.Database(path.join(dir, 'kuzu'));
  const c = new kuzu.Connection(db);
  for (const s of ['CREATE NODE TABLE User(uid INT64 PRIMARY KEY, name STRING, age INT64, status STRING, score DOUBLE)', 'CREATE REL TABLE FOLLOWS(FROM User TO User, since INT64)', "CREATE (:User {uid:1,name:'a',age:30,status:'active',score:1.5})", "CREATE (:User {uid:2,name:'b',age:31,status:'active',score:2.5})", "MATCH (a:User {uid:1}),(b:User {uid:2}) CREATE (a)-[:FOLLOWS {since:2011}]->(b)"]) { const r = await c.query(s); r.close(); }
  const ps = await c.prepare('MATCH (a:User {uid:$x})-[:FOLLOWS]->(b) RETURN b.uid AS uid');
  const r = await c.execute(ps, { x: 1 }); console.log('kuzu', kuzu.Database.getVersion?.(), await r.getAll()); r.close();
  await c.close(); await db.close();
}
{
  const db = new Surreal({ engines: createNodeEngines() });
  await db.connect('surrealkv://' + path.join(dir, 'surreal'));
  await db.use({ namespace: 'b', database: 'b' });
  console.log(await db.query('INSERT INTO user [{id:1,name:"a",age:30},{id:2,name:"b",age:31}]; RELATE user:1->follows->user:2 SET since=2011; SELECT VALUE ->follows->user.id FROM ONLY user:1; SELECT count() FROM user WHERE age>=30 GROUP ALL; RETURN count(user:1->follows->user->follows->user)').collect());
  console.log(await db.query('SELECT * FROM ONLY user:1').collect());
  await db.close();
}
fs.rmSync(dir, { recursive: true, force: true });
console.log('done'); process.exit(0);
