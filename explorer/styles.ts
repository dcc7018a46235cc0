/**
 * Colour and caption per label, chosen by the user and remembered in local storage; a label
 * gets the first palette colour no other label has, when it is first seen.
 */
import { load, save } from './storage.js';

export interface LabelStyle {
  color: string;
  /** The property shown as the caption; '' for the default (name, title, ... or label and id). */
  caption: string;
}

const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22', '#7f7f7f'];

export class Styles {
  private readonly styles: Record<string, LabelStyle> = load('styles', {});

  /** A label's style; a label seen for the first time takes the first palette colour no label has yet, and keeps it. */
  of(label: string): LabelStyle {
    const known = this.styles[label];
    if (known !== undefined) return known;
    if (label === '') return { color: '#9ca3af', caption: '' };
    const used = new Set(Object.values(this.styles).map((s) => s.color));
    const color = PALETTE.find((c) => !used.has(c)) ?? PALETTE[Object.keys(this.styles).length % PALETTE.length]!;
    this.set(label, { color, caption: '' });
    return this.styles[label]!;
  }

  set(label: string, style: LabelStyle): void {
    this.styles[label] = style;
    save('styles', this.styles);
  }
}
