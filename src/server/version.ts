/** The package's version, as the MCP endpoint's initialize answer and the OpenAPI document give it. */
import { readFileSync } from 'node:fs';

export const VERSION = packageVersion();

function packageVersion(): string {
  try {
    // dist/src/server/ in the repository and in an installed package alike.
    const text = readFileSync(new URL('../../../package.json', import.meta.url), 'utf8');
    return (JSON.parse(text) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}
