// A static file server for the page, on localhost only, with no
// dependencies: node serve.mjs [--port N] [--root DIR] [--model FILE]
//   --root   the folder served (default: this one, web/)
//   --model  a file served at /models/oware.onnx instead of web/models/
// Also used by the browser test, which starts it on a free port and maps
// test files into it (`files`: URL path -> file).
import { createReadStream, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.map': 'application/json',
};

// Starts a server; resolves with {server, url}. port 0 picks a free one.
export function serve({ root = path.dirname(fileURLToPath(import.meta.url)), port = 8080, files = {} } = {}) {
  const rootDir = path.resolve(root);
  const server = http.createServer((req, res) => {
    let rel;
    try {
      rel = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
    } catch {
      res.writeHead(400).end('bad request');
      return;
    }
    if (rel.endsWith('/')) rel += 'index.html';
    let file = path.join(rootDir, rel);
    if (Object.hasOwn(files, rel)) file = path.resolve(files[rel]);
    else if (file !== rootDir && !file.startsWith(rootDir + path.sep)) {
      res.writeHead(403).end('forbidden');
      return;
    }
    let st;
    try {
      st = statSync(file);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: ${rel}`);
      return;
    }
    if (!st.isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`not a file: ${rel}`);
      return;
    }
    res.writeHead(200, {
      'content-type': TYPES[path.extname(file)] || 'application/octet-stream',
      'content-length': st.size,
      'cache-control': 'no-cache',
    });
    createReadStream(file).pipe(res);
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
  const opt = (name, def) => {
    const i = args.indexOf(name);
    return i >= 0 && i + 1 < args.length ? args[i + 1] : def;
  };
  const model = opt('--model', null);
  const files = model ? { '/models/oware.onnx': model } : {};
  const { url } = await serve({ root: opt('--root', undefined), port: Number(opt('--port', 8080)), files });
  console.log(`Serving the page at ${url} (Ctrl-C stops)`);
}
