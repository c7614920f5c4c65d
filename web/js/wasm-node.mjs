// Loads the WebAssembly module (make web: build/web/sowzero.mjs) under Node.
// Emscripten 3.1.6's ES-module output still reaches for CommonJS's
// `require` and `__dirname` under Node; they are provided here, and the
// .wasm bytes are read from disk rather than fetched.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const REPO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const WASM_DIR = path.resolve(REPO_DIR, process.env.SOWZERO_WASM_DIR || 'build/web');

// Resolves with a fresh instance of the module (its own memory and files).
export async function loadSowZero(options = {}) {
  const js = path.join(WASM_DIR, 'sowzero.mjs');
  const wasm = path.join(WASM_DIR, 'sowzero.wasm');
  let bytes;
  try {
    bytes = readFileSync(wasm);
  } catch {
    throw new Error(`${wasm} is missing: run make web`);
  }
  globalThis.require ??= createRequire(import.meta.url);
  globalThis.__dirname ??= WASM_DIR;
  const { default: createSowZero } = await import(pathToFileURL(js).href);
  return createSowZero({ wasmBinary: bytes, ...options });
}
