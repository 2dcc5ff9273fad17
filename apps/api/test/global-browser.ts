/**
 * Vitest global setup of the `e2e` project: the libvirt tests' guests (scripts/test.sh runs them beside the browser
 * tests) are weighed down while the browser tests run, and given their default weight back after (guest-weight.ts).
 */
import { browserTestsBegin, browserTestsEnd } from './guest-weight.ts';

export default async function setup() {
  await browserTestsBegin();
  return browserTestsEnd;
}
