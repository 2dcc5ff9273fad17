/**
 * Imported first by every contract module that builds schemas. zod 4 probes `new Function('')` when an
 * object schema is built, to decide whether it may compile fast parsers; under the portal's CSP
 * (script-src 'self', no 'unsafe-eval') a browser reports that probe as a violation on every page even
 * though zod catches it. In a browser we run jitless (no probe, no codegen: parsing is the same, a little
 * slower); the server, which has no CSP, keeps the compiled parsers.
 */
import { z } from 'zod';

if (typeof document !== 'undefined') z.config({ jitless: true });
