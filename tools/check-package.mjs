// Checks what would be published: `npm pack` must hold only package.json, README, LICENSE and the
// compiled nodes and credentials; and n8n's community-package scanner (the same lint rules plus
// its bans on process, timers, console, fs, child_process and runtime dependencies) must pass on
// the sources and on the packed files. Run after `npm run build`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { analyzePackage } from '@n8n/scan-community-package/scanner/scanner.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
let failed = false;

const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }));
const allowed = /^(package\.json|README\.md|LICENSE(\.md)?|dist\/(nodes|credentials)\/.+)$/;
const stray = packed.files.map((file) => file.path).filter((file) => !allowed.test(file));
if (stray.length > 0) {
	failed = true;
	console.error(`npm pack would publish files outside dist/nodes and dist/credentials:\n  ${stray.join('\n  ')}`);
} else {
	console.log(`npm pack: ${packed.files.length} files, ${packed.size} bytes packed, all under dist/ (plus package.json, README, LICENSE)`);
}

const sources = await analyzePackage(root, ['package.json', '{nodes,credentials}/**/*.{js,ts,json}']);
console.log(`scanner on sources: ${sources.passed ? 'passed' : 'FAILED'}`);
if (!sources.passed) {
	failed = true;
	console.error(sources.message, sources.details ?? '');
}

const unpackDir = mkdtempSync(path.join(tmpdir(), 'trading-service-pack-'));
try {
	const tarball = execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', unpackDir], { cwd: root, encoding: 'utf8' }).trim().split('\n').pop();
	execFileSync('tar', ['-xzf', path.join(unpackDir, tarball), '-C', unpackDir]);
	const tarballScan = await analyzePackage(path.join(unpackDir, 'package'), ['package.json', 'dist/**/*.js']);
	console.log(`scanner on the packed tarball: ${tarballScan.passed ? 'passed' : 'FAILED'}`);
	if (!tarballScan.passed) {
		failed = true;
		console.error(tarballScan.message, tarballScan.details ?? '');
	}
} finally {
	rmSync(unpackDir, { recursive: true, force: true });
}

process.exit(failed ? 1 : 0);
