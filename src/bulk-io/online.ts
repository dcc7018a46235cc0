import type { ImportPlan } from './plan.js';
import type { Progress } from './progress.js';
import type { Summary } from './load.js';

export async function importOnline(_plan: ImportPlan, _progress: Progress, _interrupted: () => boolean): Promise<Summary> {
  throw new Error('not yet');
}
