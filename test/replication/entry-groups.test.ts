/**
 * How entries travel in stream messages (src/replication/entry-groups.ts): groups of whole
 * entries encode and decode to the same entries, the publisher's grouping keeps every
 * message within the limit and the order, and the assembler gives back split entries whole.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  decodeGroup,
  encodeGroup,
  EntryAssembler,
  firstLsn,
  GROUP_ENTRY_OVERHEAD,
  groupForMessages,
  type EntryMessage,
} from '../../src/replication/entry-groups.js';
import type { LoggedEntry } from '../../src/store/index.js';

function entries(sizes: number[], from = 1): LoggedEntry[] {
  return sizes.map((size, i) => ({
    lsn: from + i,
    hash: createHash('sha256')
      .update(String(from + i))
      .digest(),
    entry: Buffer.alloc(size, (from + i) % 251),
  }));
}

test('a group decodes to its entries, LSNs and hashes included; a damaged one is refused', () => {
  const group = entries([30, 1, 500, 77], 41);
  const data = encodeGroup(group);
  assert.equal(
    data.length,
    group.reduce((n, e) => n + e.entry.length + GROUP_ENTRY_OVERHEAD, 0),
  );
  assert.deepEqual(decodeGroup(data, 4, 44), group);
  assert.throws(() => decodeGroup(data.subarray(0, data.length - 1), 4, 44), /group ending at LSN 44 is truncated at entry 4 of 4/);
  assert.throws(() => decodeGroup(Buffer.concat([data, Buffer.alloc(3)]), 4, 44), /3 bytes after its 4 entries/);
  assert.throws(() => decodeGroup(data, 5, 44), /truncated at entry 5 of 5/);
});

test('grouping for messages keeps the order, fills each message up to the limit, and leaves a large entry alone', () => {
  const sizes = [100, 200, 50, 5000, 10, 10, 10, 900, 60];
  const all = entries(sizes);
  const limit = 1000;
  const groups = groupForMessages(all, limit);
  assert.deepEqual(groups.flat(), all, 'every entry once, in order');
  for (const group of groups) {
    const bytes = group.reduce((n, e) => n + e.entry.length + GROUP_ENTRY_OVERHEAD, 0);
    assert.ok(group.length === 1 || bytes <= limit, `a group of ${group.length} takes ${bytes} bytes`);
  }
  assert.deepEqual(
    groups.map((g) => g.map((e) => e.lsn)),
    [[1, 2, 3], [4], [5, 6, 7], [8], [9]],
  );
  assert.deepEqual(groupForMessages([], limit), []);
});

test('the assembler gives whole entries and groups at once, a split entry after its last part', () => {
  const assembler = new EntryAssembler();
  const [big] = entries([10], 7);
  const message = (m: Partial<EntryMessage> & Pick<EntryMessage, 'data'>): EntryMessage => ({
    lsn: 7,
    count: 1,
    part: 0,
    parts: 1,
    hash: big!.hash.toString('hex'),
    ...m,
  });
  assert.deepEqual(assembler.push(message({ data: big!.entry })), [big]);
  assert.deepEqual(assembler.push(message({ part: 0, parts: 3, data: big!.entry.subarray(0, 4) })), []);
  assert.deepEqual(assembler.push(message({ part: 1, parts: 3, data: big!.entry.subarray(4, 8) })), []);
  assert.deepEqual(assembler.push(message({ part: 2, parts: 3, data: big!.entry.subarray(8) })), [big]);
  // Out of order: part 2 without part 1.
  assembler.push(message({ part: 0, parts: 3, data: big!.entry.subarray(0, 4) }));
  assert.throws(
    () => assembler.push(message({ part: 2, parts: 3, data: big!.entry.subarray(8) })),
    /entry 7 arrived from part 2 \(expected 1\)/,
  );
  // A group after a partial entry (published again whole) drops the partial one.
  const group = entries([3, 4, 5], 7);
  const m = message({ lsn: 9, count: 3, hash: group[2]!.hash.toString('hex'), data: encodeGroup(group) });
  assert.equal(firstLsn(m), 7);
  assert.deepEqual(assembler.push(m), group);
});
