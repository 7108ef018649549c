import { defineConfig } from 'vite';

// The only setting the packages ask of a Vite app: ES-module workers.
export default defineConfig({
  worker: { format: 'es' },
});
