/**
 * Colour and caption per label (and colour per relationship type), chosen by the user and
 * remembered in local storage; a label nobody styled gets a colour from its name.
 */
import { load, save } from './storage.js';

export interface LabelStyle {
  color: string;
  /** The property shown as the caption; '' for the default (name, title, ... or label and id). */
  caption: string;
}

const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22', '#7f7f7f'];

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

export class Styles {
  private readonly styles: Record<string, LabelStyle> = load('styles', {});

  of(label: string): LabelStyle {
    return this.styles[label] ?? { color: label === '' ? '#9ca3af' : PALETTE[hash(label) % PALETTE.length]!, caption: '' };
  }

  set(label: string, style: LabelStyle): void {
    this.styles[label] = style;
    save('styles', this.styles);
  }
}
