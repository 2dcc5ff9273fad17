/** noVNC's RFB client: its own chunk (about 400 kB), loaded by the graphical tab when it is shown. */
import RFBModule from '@novnc/novnc/lib/rfb';

// noVNC's npm package is CommonJS (`exports.default = RFB`): depending on the bundler's interop the default
// import is the class or the exports object holding it.
export const RFB: typeof RFBModule = (RFBModule as unknown as { default?: typeof RFBModule }).default ?? RFBModule;
export type RfbClient = RFBModule;
