// Shared by the export and front-end tests: paths, the `sowzero engine`
// protocol, a seeded RNG, and imports that fail loudly when a package is
// missing (a test must never skip because the runtime is not installed).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const REPO_DIR = path.resolve(WEB_DIR, '..');

const abs = (p) => path.resolve(REPO_DIR, p);
// The binary and the folder of exported models and cases (make test-export).
export const SOWZERO_BIN = abs(process.env.SOWZERO_BIN || 'build/sowzero');
export const EXPORT_DIR = abs(process.env.SOWZERO_EXPORT_DIR || 'build/export-test');

export function requireFile(p, hint) {
  if (!existsSync(p)) throw new Error(`${p} is missing; ${hint}`);
  return p;
}

const require = createRequire(path.join(WEB_DIR, 'package.json'));
// A CommonJS package from web/node_modules; an Error saying how to install
// it otherwise.
export function requirePackage(name) {
  try {
    return require(name);
  } catch (e) {
    throw new Error(`the npm package ${name} cannot be loaded (${e.message.split('\n')[0]}); ` +
      'run `npm ci` in web/ (make test-export does)');
  }
}

// mulberry32: a small seeded generator, uniform in [0, 1).
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// `sowzero engine` as a child process (args: e.g. ['--seed', '7']).
// request(line) resolves with the whole response without its empty line
// ('= ...' or '? ...'); send(line) with the text after '= ', or rejects
// with the '? ' message.
export class Engine {
  constructor(bin = SOWZERO_BIN, args = []) {
    requireFile(bin, 'build it with make (or set SOWZERO_BIN)');
    this.proc = spawn(bin, ['engine', ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.buf = '';
    this.waiting = [];
    this.proc.stdout.setEncoding('utf8');
    this.proc.stdout.on('data', (d) => {
      this.buf += d;
      let i;
      while ((i = this.buf.indexOf('\n\n')) >= 0) {
        const resp = this.buf.slice(0, i);
        this.buf = this.buf.slice(i + 2);
        this.waiting.shift()?.resolve(resp);
      }
    });
    this.proc.on('exit', (code) => {
      for (const w of this.waiting.splice(0)) w.reject(new Error(`engine exited (${code}) before answering '${w.line}'`));
    });
  }

  request(line) {
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject, line });
      this.proc.stdin.write(`${line}\n`);
    });
  }

  async send(line) {
    const resp = await this.request(line);
    if (!resp.startsWith('=')) throw new Error(`engine: ${resp} (after '${line}')`);
    return resp.replace(/^=\d*\s?/, '');
  }

  async close() {
    const done = new Promise((r) => this.proc.once('exit', r));
    this.proc.stdin.end('quit\n');
    await done;
  }
}
