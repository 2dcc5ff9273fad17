/** Start-up failure messages (issue 9 item 16) for the causes a test machine cannot produce for real. */
import { describe, expect, it } from 'vitest';
import { describeDatabaseError, describeListenError } from './startup.ts';

const fsError = (code: string) => Object.assign(new Error(`${code}: failed`), { code });

describe('start-up messages', () => {
  it('names a read-only or full DATA_DIR', () => {
    expect(describeDatabaseError(fsError('EROFS'), { DATA_DIR: '/srv/portal' })).toBe(
      'DATA_DIR /srv/portal is not writable (EROFS): give this user write access or set DATA_DIR elsewhere.',
    );
    expect(describeDatabaseError(fsError('ENOSPC'), { DATA_DIR: '/srv/portal' })).toBe(
      'DATA_DIR /srv/portal: the disk is full. Free space and start again.',
    );
  });

  it('names the PostgreSQL cause behind a failed migration, without the password', () => {
    const wrapped = (code: string) =>
      Object.assign(new Error('Failed query: CREATE SCHEMA IF NOT EXISTS "drizzle"'), {
        cause: Object.assign(new Error('x'), { code }),
      });
    const config = { DATABASE_URL: 'postgres://u:hunter2@db.internal:5432/portal', DATA_DIR: './data' };
    expect(describeDatabaseError(wrapped('28P01'), config)).toBe(
      'PostgreSQL at db.internal:5432/portal refused the user name or password in DATABASE_URL.',
    );
    expect(describeDatabaseError(wrapped('3D000'), config)).toMatch(/does not exist/);
    expect(describeDatabaseError(wrapped('ENOTFOUND'), config)).toMatch(/unknown host name/);
    expect(describeDatabaseError(wrapped('28P01'), config)).not.toContain('hunter2');
    expect(describeDatabaseError(new Error('x'), { DATABASE_URL: 'not a url', DATA_DIR: '.' })).toMatch(
      /not a valid URL/,
    );
  });

  it('names a port in use', () => {
    expect(describeListenError(fsError('EADDRINUSE'), { PORT: 3000, HOST: '0.0.0.0' })).toBe(
      'Port 3000 on 0.0.0.0 is already in use (PORT): stop the other process or set PORT to a free port.',
    );
  });
});
