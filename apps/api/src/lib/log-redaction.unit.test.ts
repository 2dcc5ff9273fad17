/** The request log's URL: credentials in a query or a key-like path segment become [redacted], the rest stays. */
import { expect, it } from 'vitest';
import { REDACTED, redactUrl, serializeRequest } from './log-redaction.ts';

const KEY = 'q3V8dM1xZk2p9LrT5wYb0cHn';

it('redacts the values of credential parameters, whatever their case or position', () => {
  expect(redactUrl(`/irontech/api/v1/virtualMachines/console/7/vnc?token=${KEY}`)).toBe(
    `/irontech/api/v1/virtualMachines/console/7/vnc?token=${REDACTED}`,
  );
  expect(redactUrl(`/resetPassword?token=${KEY}&id=12`)).toBe(`/resetPassword?token=${REDACTED}&id=12`);
  expect(redactUrl(`/confirmNewUser?id=12&Token=${KEY}`)).toBe(`/confirmNewUser?id=12&Token=${REDACTED}`);
  expect(redactUrl(`/x?resetKey=a&code=123456&api_key=z&sig=s&page=2`)).toBe(
    `/x?resetKey=${REDACTED}&code=${REDACTED}&api_key=${REDACTED}&sig=${REDACTED}&page=2`,
  );
  expect(redactUrl(`/x?%74oken=${KEY}`)).toBe(`/x?%74oken=${REDACTED}`);
});

it('redacts a key-like path segment, keeps ids, names and asset files', () => {
  expect(redactUrl(`/irontech/api/v1/users/confirmEmail/${KEY}`)).toBe(
    `/irontech/api/v1/users/confirmEmail/${REDACTED}`,
  );
  expect(redactUrl('/irontech/api/v1/users/resetPasswordFromEmail/12')).toBe(
    '/irontech/api/v1/users/resetPasswordFromEmail/12',
  );
  expect(redactUrl('/assets/index-4f9a8b7c6d5e4f3a2b1c0d9e.js')).toBe('/assets/index-4f9a8b7c6d5e4f3a2b1c0d9e.js');
  expect(redactUrl('/irontech/api/v1/virtualMachines?page=1&rowsPerPage=10&search=web')).toBe(
    '/irontech/api/v1/virtualMachines?page=1&rowsPerPage=10&search=web',
  );
});

it('never lets a fragment or a malformed escape through', () => {
  expect(redactUrl(`/a?token=${KEY}#frag`)).toBe(`/a?token=${REDACTED}`);
  expect(redactUrl(`/a?%E0%A4%A=1&token=${KEY}`)).toBe(`/a?%E0%A4%A=1&token=${REDACTED}`);
});

it('serializes a request with the same fields as Fastify, the URL redacted', () => {
  const req = {
    method: 'GET',
    url: `/c?token=${KEY}`,
    headers: {},
    host: 'portal.test',
    ip: '127.0.0.1',
    socket: { remotePort: 4000 },
  } as unknown as Parameters<typeof serializeRequest>[0];
  expect(serializeRequest(req)).toEqual({
    method: 'GET',
    url: `/c?token=${REDACTED}`,
    version: undefined,
    host: 'portal.test',
    remoteAddress: '127.0.0.1',
    remotePort: 4000,
  });
});
