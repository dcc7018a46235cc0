/**
 * The aggregating Cypher functions (CIP2016-06-14, "Aggregation"): each group gets one
 * Aggregator per aggregation; rows are added one by one and the result read once.
 *
 * Nulls are never aggregated (count(*) aside, which counts rows); with DISTINCT a value
 * equivalent (groupKey) to one already added is skipped. An empty group gives count 0,
 * sum 0, stdev and stdevp 0.0, collect [] and null for the rest (avg of nothing is null:
 * TCK ReturnOrderBy6 [1]).
 */
import { GraphError } from '../../core/errors.js';
import { typeName, type CypherValue } from '../../core/cypher-value.js';
import type { Where } from '../../plan/table.js';
import { runtimeError } from './env.js';
import { checkedInt, groupKey, isNumber, orderValues } from './operators.js';

export interface Aggregator {
  add(args: readonly CypherValue[]): void;
  result(): CypherValue;
}

type Num = bigint | number;

function numberValue(fn: string, v: CypherValue, at: Where): Num {
  if (!isNumber(v)) throw runtimeError('type_error', 'InvalidArgumentType', `${fn}() aggregates numbers, not a ${typeName(v)}`, at);
  return v;
}

/** A sum kept exactly: integers as an unbounded bigint (checked against 64 bits only at the end, so the order of rows cannot matter), floats apart. */
class NumberSum {
  ints = 0n;
  floats = 0;
  sawFloat = false;
  count = 0;

  add(v: Num): void {
    this.count++;
    if (typeof v === 'bigint') this.ints += v;
    else {
      this.floats += v;
      this.sawFloat = true;
    }
  }

  total(at: Where): Num {
    return this.sawFloat ? Number(this.ints) + this.floats : checkedInt(this.ints, at);
  }
}

function sum(at: Where): Aggregator {
  const s = new NumberSum();
  return { add: (args) => s.add(numberValue('sum', args[0]!, at)), result: () => s.total(at) };
}

function avg(at: Where): Aggregator {
  const s = new NumberSum();
  return {
    add: (args) => s.add(numberValue('avg', args[0]!, at)),
    result: () => (s.count === 0 ? null : (Number(s.ints) + s.floats) / s.count),
  };
}

/** min and max by orderability, so mixed types have an answer (TCK Aggregation2 [11-12]). */
function extreme(sign: 1 | -1): Aggregator {
  let best: CypherValue | undefined;
  return {
    add: (args) => {
      const v = args[0]!;
      if (best === undefined || sign * orderValues(v, best) > 0) best = v;
    },
    result: () => best ?? null,
  };
}

/** Welford's running mean and sum of squared deviations: stable for large values. */
function deviation(fn: string, population: boolean, at: Where): Aggregator {
  let n = 0;
  let mean = 0;
  let m2 = 0;
  return {
    add: (args) => {
      const x = Number(numberValue(fn, args[0]!, at));
      n++;
      const d = x - mean;
      mean += d / n;
      m2 += d * (x - mean);
    },
    result: () => {
      const divisor = population ? n : n - 1;
      return divisor <= 0 ? 0 : Math.sqrt(m2 / divisor);
    },
  };
}

/**
 * percentileCont and percentileDisc. The percentile is checked on every row (TCK
 * Aggregation6 [3-5]: outside 0..1 is argument_error NumberOutOfRange); the first one is used.
 */
function percentile(fn: string, continuous: boolean, at: Where): Aggregator {
  const values: Num[] = [];
  let p: number | undefined;
  return {
    add: (args) => {
      const given = args[1] ?? null;
      if (!isNumber(given))
        throw runtimeError('type_error', 'InvalidArgumentValue', `${fn}(): the percentile must be a number, not a ${typeName(given)}`, at);
      const q = Number(given);
      if (!(q >= 0 && q <= 1))
        throw runtimeError('argument_error', 'NumberOutOfRange', `${fn}(): the percentile ${q} is not between 0.0 and 1.0`, at);
      p ??= q;
      values.push(numberValue(fn, args[0]!, at));
    },
    result: () => {
      if (values.length === 0 || p === undefined) return null;
      values.sort(orderValues);
      const n = values.length;
      if (!continuous) return values[Math.max(0, Math.ceil(p * n) - 1)]!; // nearest rank
      const pos = p * (n - 1);
      const lo = Math.floor(pos);
      const hi = Math.ceil(pos);
      const low = Number(values[lo]!);
      return lo === hi ? low : low + (Number(values[hi]!) - low) * (pos - lo);
    },
  };
}

const AGGREGATES: { readonly [fn: string]: (at: Where) => Aggregator } = {
  count: () => {
    let n = 0n;
    return { add: () => void n++, result: () => n };
  },
  sum,
  avg,
  min: () => extreme(-1),
  max: () => extreme(1),
  collect: () => {
    const items: CypherValue[] = [];
    return { add: (args) => void items.push(args[0]!), result: () => items };
  },
  stdev: (at) => deviation('stdev', false, at),
  stdevp: (at) => deviation('stdevp', true, at),
  percentilecont: (at) => percentile('percentileCont', true, at),
  percentiledisc: (at) => percentile('percentileDisc', false, at),
};

/** Whether `fn` (lower case, or count_star) has an aggregator. */
export function isAggregate(fn: string): boolean {
  return fn === 'count_star' || Object.hasOwn(AGGREGATES, fn);
}

/** A fresh aggregator for one group: `fn` lower case as in plan/table.ts's Aggregation, `count_star` for count(*). */
export function makeAggregator(fn: string, distinct: boolean, at: Where): Aggregator {
  if (fn === 'count_star') {
    let rows = 0n;
    return { add: () => void rows++, result: () => rows };
  }
  if (!Object.hasOwn(AGGREGATES, fn)) throw new GraphError('internal_error', `no aggregate function ${fn}`);
  const inner = AGGREGATES[fn]!(at);
  const seen = distinct ? new Set<string>() : null;
  return {
    add(args) {
      const v = args[0] ?? null;
      if (v === null) return;
      if (seen !== null) {
        const key = groupKey(v);
        if (seen.has(key)) return;
        seen.add(key);
      }
      inner.add(args);
    },
    result: () => inner.result(),
  };
}
