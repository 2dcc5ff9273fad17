import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { precompress } from './precompress.ts';
import { routeTable } from './route-table.ts';

// Relative asset URLs: the server writes <base href="{BASE_PATH}/"> into index.html, so one build
// serves any base path.
export default defineConfig({
  base: './',
  plugins: [routeTable(), react(), tailwindcss(), precompress()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true },
  server: { proxy: { '/irontech': 'http://localhost:3000' } },
});
