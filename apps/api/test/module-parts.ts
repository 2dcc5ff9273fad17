/**
 * What tests take from modules other than the one they test (fixtures: an operator token, a reseller's staff
 * company, the services an import builds with). A module's code never imports another module (eslint.config.js,
 * docs/architecture.md); its tests reach the others' parts through the harness, as the app does through app.ts.
 */
export { createOperatorTokens } from '../src/modules/operator/operator-tokens.ts';
export { ensureStaffCompany } from '../src/modules/reseller-companies/staff.ts';
export { createBrandWriter } from '../src/modules/branding/brand-writer.ts';
export { createResellerHosts } from '../src/modules/branding/reseller-hosts.ts';
export { createSessionCache } from '../src/modules/auth/session-cache.ts';
