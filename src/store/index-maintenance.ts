/**
 * Keeps every index current with the writes of a batch, in the batch's own transaction:
 * GraphWriteView tells it what an element was and what it is now, and each index of the
 * element's label that is affected removes the old entry and adds the new one. A unique
 * violation, a text document over its limits or a bad vector throws, and the batch rolls
 * back whole.
 *
 * Which indexes: those `active`, and those `building` for elements the build's scan has
 * already passed (ids below its cursor); the scan itself indexes the rest as it reaches
 * them (index-work.ts). A `dropping` index is not maintained.
 *
 * With no index at all (the common case) every hook returns after one comparison.
 */
import { GraphError } from '../core/errors.js';
import { describeIndex, familyOf, type IndexElement } from '../core/index-spec.js';
import type { Value, ValueObject } from '../core/value.js';
import type { Catalog, CatalogReader, IndexDef } from './index-catalog.js';
import { sameIndexedValue, type SecondaryEntries } from './secondary-index.js';
import { describeStagingBreach, TextStaging } from '../search/text-analysis.js';

/** What an element is at one moment: its label and properties (null: it does not exist). */
export interface ElementState {
  readonly label: string;
  readonly props: ValueObject;
}

/** How one family of indexes (text, vector) keeps its entries. */
export interface FamilyEntries {
  /** Indexes the element's value of the index's property (replacing any entry it had). */
  add(def: IndexDef, id: number, props: ValueObject): void;
  /** Removes the element's entry, if it has one. */
  remove(def: IndexDef, id: number, props: ValueObject): void;
  /** An element a build's scan reached; without this, the scan removes then adds it. */
  scanned?(def: IndexDef, id: number, props: ValueObject): void;
}

export interface MaintenanceTargets {
  readonly secondary: SecondaryEntries;
  readonly text: FamilyEntries | null;
  readonly vector: FamilyEntries | null;
  /** The current value of an element's property (the unique check reads the holders of a value). */
  valueOf(element: IndexElement, id: number, property: string): Value | undefined;
}

function watched(def: IndexDef): readonly string[] {
  const spec = def.spec;
  return 'tenant_property' in spec && spec.tenant_property !== null ? [spec.property, spec.tenant_property] : [spec.property];
}

export class IndexMaintainer {
  private catalog: Catalog;
  /** Scan cursors of the builds in progress, by index id. */
  private cursors = new Map<number, number>();
  /** Text this batch stages per text index (at most 8 MiB each; builds are not counted). */
  private readonly staging = new TextStaging();
  private scanning = false;
  /** Whether this batch left work for the writer's background (DDL, vector links). */
  queued = false;

  constructor(
    private readonly reader: CatalogReader,
    private readonly targets: MaintenanceTargets,
  ) {
    this.catalog = reader.current();
    this.loadCursors();
  }

  /** After a DDL operation in this batch, or a build step: read the catalogue again. */
  refresh(): void {
    this.catalog = this.reader.current();
    this.loadCursors();
  }

  private loadCursors(): void {
    this.cursors.clear();
    for (const def of this.catalog.defs) {
      if (def.state !== 'building') continue;
      const op = this.reader.operation(def.operation);
      this.cursors.set(def.id, op?.cursor ?? 0);
    }
  }

  get idle(): boolean {
    return this.catalog.empty;
  }

  /** Whether an index is kept on elements of this label (so each one's changes must be seen). */
  watches(element: IndexElement, label: string): boolean {
    return this.catalog.liveOn(element, label).length > 0;
  }

  private applies(def: IndexDef, id: number): boolean {
    return def.state === 'active' || id < (this.cursors.get(def.id) ?? 0);
  }

  /** An element was created, changed or deleted (`before`/`after` null for none). */
  changed(element: IndexElement, id: number, before: ElementState | null, after: ElementState | null): void {
    if (this.catalog.empty) return;
    if (before !== null) {
      for (const def of this.catalog.liveOn(element, before.label)) {
        if (!this.applies(def, id)) continue;
        if (after !== null && after.label === before.label && !this.differs(def, before.props, after.props)) continue;
        this.remove(def, id, before.props);
      }
    }
    if (after !== null) {
      for (const def of this.catalog.liveOn(element, after.label)) {
        if (!this.applies(def, id)) continue;
        if (before !== null && before.label === after.label && !this.differs(def, before.props, after.props)) continue;
        this.add(def, element, id, after.props);
      }
    }
  }

  private differs(def: IndexDef, a: ValueObject, b: ValueObject): boolean {
    for (const p of watched(def)) if (a[p] !== b[p]) return true;
    return false;
  }

  /** Indexes one element for a build's scan (it may already be indexed: adding replaces). */
  build(def: IndexDef, element: IndexElement, id: number, props: ValueObject): void {
    const family = familyOf(def.spec.kind) === 'vector' ? this.targets.vector : null;
    if (family?.scanned !== undefined) {
      this.queued = true;
      family.scanned(def, id, props);
      return;
    }
    this.scanning = true;
    try {
      this.remove(def, id, props);
      this.add(def, element, id, props);
    } finally {
      this.scanning = false;
    }
  }

  private add(def: IndexDef, element: IndexElement, id: number, props: ValueObject): void {
    switch (familyOf(def.spec.kind)) {
      case 'secondary': {
        const value = props[def.spec.property];
        if (value === undefined) return;
        if (def.spec.kind.endsWith('_equality') && 'unique' in def.spec && def.spec.unique) this.checkUnique(def, element, id, value);
        this.targets.secondary.put(def.id, value, id);
        return;
      }
      case 'text': {
        const text = props[def.spec.property];
        if (!this.scanning && typeof text === 'string') {
          const breach = this.staging.add(describeIndex(def.spec), text);
          if (breach !== null) throw new GraphError('index_operation_batch_too_large', describeStagingBreach(breach));
        }
        return this.targets.text?.add(def, id, props);
      }
      case 'vector':
        this.queued = true;
        return this.targets.vector?.add(def, id, props);
    }
  }

  private remove(def: IndexDef, id: number, props: ValueObject): void {
    switch (familyOf(def.spec.kind)) {
      case 'secondary':
        return this.targets.secondary.remove(def.id, props[def.spec.property], id);
      case 'text':
        return this.targets.text?.remove(def, id, props);
      case 'vector':
        this.queued = true;
        return this.targets.vector?.remove(def, id, props);
    }
  }

  private checkUnique(def: IndexDef, element: IndexElement, id: number, value: Value): void {
    for (const other of this.targets.secondary.equal(def.id, value) ?? []) {
      if (other === id) continue;
      if (!sameIndexedValue(this.targets.valueOf(element, other, def.spec.property), value)) continue;
      throw new GraphError(
        'unique_constraint_violation',
        `${describeIndex(def.spec)} is unique: ${element} ${id} would have ${def.spec.property} = ${shown(value)}, which ${element} ${other} already has`,
      );
    }
  }
}

function shown(v: Value): string {
  const text = typeof v === 'bigint' ? v.toString() : typeof v === 'string' ? JSON.stringify(v) : String(v);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
