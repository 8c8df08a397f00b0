/**
 * README's manual install, as a user runs it: `npm pack` of the built package, then the README's
 * `npm install …tgz` line in a fresh folder standing in for `~/.n8n/nodes`. The package must come
 * alone: n8n provides its peer dependency n8n-workflow, which a plain `npm install` (npm 7 and
 * later) would add with its whole tree (about 160 packages).
 *
 * npm talks to a recording stand-in registry on loopback that answers 404 to everything, with an
 * empty cache: the README's command must need nothing from any registry (so it cannot have added
 * anything), and the plain command shows what it would have fetched.
 */
import * as fs from 'fs';
import * as fsp from 'fs/promises';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';

import { PACKAGE_NAME } from '../../tools/n8n/package';
import { runProcess, type ProcessResult } from '../../tools/n8n/processes';
import { REPO_ROOT } from '../../tools/n8n/runtime';
import { describeE2E } from '../support/describe-e2e';

/** The caller's env minus npm's per-script variables (`npm test`'s or npx's own config). */
function npmEnv(): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [k, v] of Object.entries(process.env)) {
		if (/^npm_(config|package|lifecycle)_/i.test(k)) continue;
		env[k] = v;
	}
	return env;
}

/** The `npm install … .tgz` line of README.md's "Manual install" block, split into words. */
function readmeInstallCommand(): string[] {
	const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
	const section = readme.slice(readme.indexOf('**Manual install**'));
	const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
	const lines = block.split('\n').filter((line) => /^npm install .*\.tgz$/.test(line));
	if (lines.length !== 1)
		throw new Error(`README's manual install has ${lines.length} "npm install …tgz" lines`);
	return lines[0].split(/\s+/);
}

/** Every package folder under node_modules (scoped ones as @scope/name), at any depth. */
function installedPackages(nodeModules: string): string[] {
	if (!fs.existsSync(nodeModules)) return [];
	const found: string[] = [];
	for (const entry of fs.readdirSync(nodeModules)) {
		if (entry.startsWith('.')) continue; // .package-lock.json, .bin
		const names = entry.startsWith('@')
			? fs.readdirSync(path.join(nodeModules, entry)).map((name) => `${entry}/${name}`)
			: [entry];
		for (const name of names) {
			found.push(name);
			found.push(...installedPackages(path.join(nodeModules, name, 'node_modules')));
		}
	}
	return found;
}

describeE2E('manual install (README): npm installs the package alone', () => {
	let work: string;
	let tarball: string;
	let version: string;
	let registry: http.Server;
	let registryUrl: string;
	const asked: string[] = [];

	beforeAll(async () => {
		work = await fsp.mkdtemp(path.join(os.tmpdir(), 'manual-install-'));
		const packed = await runProcess(
			'npm',
			['pack', '--json', '--ignore-scripts', '--pack-destination', work],
			{ env: npmEnv(), cwd: REPO_ROOT, timeoutMs: 120_000 },
		);
		if (packed.exitCode !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
		const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{
			filename: string;
			version: string;
		}>;
		tarball = path.join(work, path.basename(info.filename));
		version = info.version;

		registry = http.createServer((req, res) => {
			asked.push(decodeURIComponent(req.url ?? ''));
			res.writeHead(404, { 'Content-Type': 'application/json' });
			res.end('{"error":"Not found"}');
		});
		await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
		registryUrl = `http://127.0.0.1:${(registry.address() as AddressInfo).port}/`;
	});

	afterAll(async () => {
		await new Promise<void>((resolve) => registry?.close(() => resolve()));
		if (work) await fsp.rm(work, { recursive: true, force: true });
	});

	beforeEach(() => {
		asked.length = 0;
	});

	/** A fresh `~/.n8n/nodes` (with the package.json n8n keeps there), and npm run in it. */
	async function installIn(
		name: string,
		command: string[],
	): Promise<ProcessResult & { dir: string }> {
		const dir = path.join(work, name, '.n8n', 'nodes');
		await fsp.mkdir(dir, { recursive: true });
		await fsp.writeFile(
			path.join(dir, 'package.json'),
			JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }),
		);
		expect(installedPackages(path.join(dir, 'node_modules'))).toEqual([]);
		const [npm, ...args] = command;
		const result = await runProcess(
			npm,
			[
				...args,
				`--registry=${registryUrl}`,
				`--cache=${path.join(work, name, 'npm-cache')}`,
				'--fetch-retries=0',
				'--audit=false',
				'--fund=false',
			],
			{ env: npmEnv(), cwd: dir, timeoutMs: 180_000 },
		);
		return { ...result, dir };
	}

	test('issue 24 housekeeping: the README command installs only n8n-nodes-trading-service, nothing from n8n-workflow, and asks no registry for anything', async () => {
		const command = readmeInstallCommand();
		expect(command.slice(0, 2)).toEqual(['npm', 'install']);
		const withTarball = command.map((word) =>
			/n8n-nodes-trading-service-<version>\.tgz$/.test(word) ? tarball : word,
		);
		expect(withTarball).toContain(tarball);

		const result = await installIn('readme', withTarball);
		expect({
			exitCode: result.exitCode,
			stderr: result.exitCode === 0 ? '' : result.stderr,
		}).toEqual({ exitCode: 0, stderr: '' });
		expect(result.stdout).toMatch(/added 1 package\b/);
		const nodeModules = path.join(result.dir, 'node_modules');
		expect(installedPackages(nodeModules)).toEqual([PACKAGE_NAME]);
		expect(fs.existsSync(path.join(nodeModules, 'n8n-workflow'))).toBe(false);
		const installed = JSON.parse(
			fs.readFileSync(path.join(nodeModules, PACKAGE_NAME, 'package.json'), 'utf8'),
		) as { version: string; dependencies?: Record<string, string> };
		expect(installed.version).toBe(version);
		expect(installed.dependencies).toBeUndefined();
		// The lock file npm wrote knows of nothing else either.
		const lock = JSON.parse(
			fs.readFileSync(path.join(result.dir, 'package-lock.json'), 'utf8'),
		) as { packages: Record<string, unknown> };
		expect(Object.keys(lock.packages).sort()).toEqual(['', `node_modules/${PACKAGE_NAME}`]);
		expect(asked).toEqual([]);
	});

	test('issue 24 housekeeping: without the flag npm goes for the peer dependency n8n-workflow (why the README has it)', async () => {
		const result = await installIn('plain', ['npm', 'install', tarball]);
		expect(asked).toContain('/n8n-workflow');
		expect(result.exitCode).not.toBe(0); // the stand-in registry has no n8n-workflow
		expect(installedPackages(path.join(result.dir, 'node_modules'))).toEqual([]);
	});
});
