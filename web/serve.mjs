// A static file server for the page, on localhost only, with no
// dependencies:
//   node serve.mjs [--port N] [--run DIR] [--weights FILE]...
//   --run      a training run: its DIR/best.weights is served as
//              /models/best.weights
//   --weights  a weight file, served as /models/ and its name (repeatable)
//   neither    the shipped networks, models/*.weights of this tree
// The page is web/; the WebAssembly module (make web) is served from
// build/web/ at /wasm/ (SOWZERO_WASM_DIR moves it); GET /models/ lists the
// networks as JSON, [{"name", "size"}]. The browser test starts it on a
// free port with its own networks (serve({port: 0, models})).
import { createReadStream, existsSync, readdirSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const WEB_DIR = path.dirname(fileURLToPath(import.meta.url));
const REPO_DIR = path.resolve(WEB_DIR, '..');
const WASM_DIR = path.resolve(REPO_DIR, process.env.SOWZERO_WASM_DIR || 'build/web');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

function sendFile(res, file) {
  let st;
  try {
    st = statSync(file);
  } catch {
    return false;
  }
  if (!st.isFile()) return false;
  res.writeHead(200, {
    'content-type': TYPES[path.extname(file)] || 'application/octet-stream',
    'content-length': st.size,
    'cache-control': 'no-cache',
  });
  createReadStream(file).pipe(res);
  return true;
}

// Starts a server; resolves with {server, url}. port 0 picks a free one.
// models: {name: file} served under /models/.
export function serve({ port = 8080, models = {}, root = WEB_DIR, wasmDir = WASM_DIR } = {}) {
  const rootDir = path.resolve(root);
  const wasm = {
    '/wasm/sowzero.mjs': path.join(wasmDir, 'sowzero.mjs'),
    '/wasm/sowzero.wasm': path.join(wasmDir, 'sowzero.wasm'),
  };
  const server = http.createServer((req, res) => {
    let rel;
    try {
      rel = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
    } catch {
      res.writeHead(400).end('bad request');
      return;
    }
    if (rel === '/models/' || rel === '/models') {
      const list = Object.entries(models).map(([name, file]) => ({ name, size: statSync(file).size }));
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache' }).end(JSON.stringify(list));
      return;
    }
    let file;
    if (Object.hasOwn(wasm, rel)) file = wasm[rel];
    else if (rel.startsWith('/models/') && Object.hasOwn(models, rel.slice(8))) file = models[rel.slice(8)];
    else {
      if (rel.endsWith('/')) rel += 'index.html';
      file = path.join(rootDir, rel);
      if (file !== rootDir && !file.startsWith(rootDir + path.sep)) {
        res.writeHead(403).end('forbidden');
        return;
      }
    }
    if (!sendFile(res, file)) {
      const hint = rel.startsWith('/wasm/') ? ' (run make web)' : '';
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: ${rel}${hint}`);
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      resolve({ server, url: `http://127.0.0.1:${server.address().port}/` });
    });
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const models = {};
  let port = 8080;
  const fail = (msg) => {
    console.error(`serve.mjs: ${msg}`);
    process.exit(2);
  };
  for (let i = 0; i < args.length; i++) {
    const value = () => args[++i] ?? fail(`${args[i - 1]} needs a value`);
    if (args[i] === '--port') port = Number(value());
    else if (args[i] === '--run') models['best.weights'] = path.join(value(), 'best.weights');
    else if (args[i] === '--weights') {
      const f = value();
      models[path.basename(f)] = f;
    } else fail(`unknown argument ${args[i]} (--port N, --run DIR, --weights FILE)`);
  }
  if (Object.keys(models).length === 0) {
    const shipped = path.join(REPO_DIR, 'models');
    for (const f of existsSync(shipped) ? readdirSync(shipped).sort() : [])
      if (f.endsWith('.weights')) models[f] = path.join(shipped, f);
  }
  for (const f of Object.values(models)) if (!existsSync(f)) fail(`${f} does not exist`);
  for (const f of ['sowzero.mjs', 'sowzero.wasm'])
    if (!existsSync(path.join(WASM_DIR, f))) fail(`${path.join(WASM_DIR, f)} is missing: run make web`);
  const { url } = await serve({ port, models });
  console.log(`Serving the page at ${url} (Ctrl-C stops)`);
  for (const name of Object.keys(models)) console.log(`  network: ${url}models/${name}`);
}
