/**
 * The package under test, installed into an n8n user folder the way n8n installs a community
 * package (from the tarball `npm pack` makes).
 */
import * as fs from 'fs';
import * as fsp from 'fs/promises';
import * as os from 'os';
import * as path from 'path';

import { runProcess, tail } from './processes';
import { REPO_ROOT } from './runtime';

/** npm name of the package under test; n8n node types are `<PACKAGE_NAME>.<nodeName>`. */
export const PACKAGE_NAME = 'n8n-nodes-trading-service';

export interface InstalledPackage {
	/** `<userFolder>/.n8n/nodes/node_modules/n8n-nodes-trading-service` */
	packageDir: string;
	name: string;
	version: string;
	/** File name of the tarball `npm pack` made. */
	tarballName: string;
	/** Where the tarball was kept (`<userFolder>/<name>.tgz`) if keepTarball; else it is deleted. */
	tarballPath?: string;
	/** Node/credential files listed in package.json's "n8n" section, relative to packageDir. */
	nodes: string[];
	credentials: string[];
}

/**
 * Install the repo's package into `<userFolder>/.n8n/nodes` the way n8n installs a community
 * package: `npm pack` the repo (it must already be built: `npm run build` makes dist/), unpack
 * the tarball into `.n8n/nodes/node_modules/<name>` and list it in `.n8n/nodes/package.json`.
 * n8n then registers its node types as `n8n-nodes-trading-service.<nodeName>`.
 */
export async function packAndInstallPackage(
	userFolder: string,
	options: { repoRoot?: string; keepTarball?: boolean; timeoutMs?: number } = {},
): Promise<InstalledPackage> {
	const repoRoot = options.repoRoot ?? REPO_ROOT;
	const pkg = JSON.parse(await fsp.readFile(path.join(repoRoot, 'package.json'), 'utf8')) as {
		name: string;
		version: string;
		n8n?: { nodes?: string[]; credentials?: string[] };
	};
	const declared = [...(pkg.n8n?.nodes ?? []), ...(pkg.n8n?.credentials ?? [])];
	const missing = declared.filter((f) => !fs.existsSync(path.join(repoRoot, f)));
	if (declared.length === 0 || missing.length > 0) {
		throw new Error(
			`The package is not built: ${missing.length ? `missing ${missing.join(', ')}` : 'package.json lists no n8n nodes'}. Run \`npm run build\` first.`,
		);
	}

	const work = await fsp.mkdtemp(path.join(os.tmpdir(), 'n8n-pack-'));
	try {
		// --ignore-scripts: dist/ is already built; lifecycle scripts are not ours to run here.
		const packed = await runProcess(
			'npm',
			['pack', '--json', '--ignore-scripts', '--pack-destination', work],
			{ env: npmEnv(), cwd: repoRoot, timeoutMs: options.timeoutMs ?? 120_000 },
		);
		if (packed.exitCode !== 0)
			throw new Error(`npm pack failed:\n${tail(packed.stderr + packed.stdout, 40)}`);
		const info = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{
			filename: string;
		}>;
		const tarball = path.join(work, path.basename(info[0].filename));

		const nodesDir = path.join(userFolder, '.n8n', 'nodes');
		const packageDir = path.join(nodesDir, 'node_modules', pkg.name);
		const unpackDir = path.join(work, 'unpack');
		await fsp.mkdir(unpackDir, { recursive: true });
		const untar = await runProcess('tar', ['-xzf', tarball, '-C', unpackDir], {
			env: process.env,
			timeoutMs: 60_000,
		});
		if (untar.exitCode !== 0) throw new Error(`tar failed: ${untar.stderr}`);
		await fsp.rm(packageDir, { recursive: true, force: true });
		await fsp.mkdir(path.dirname(packageDir), { recursive: true });
		await fsp.cp(path.join(unpackDir, 'package'), packageDir, { recursive: true });

		// What n8n writes when it installs a community package.
		const manifestPath = path.join(nodesDir, 'package.json');
		let manifest: { name?: string; private?: boolean; dependencies?: Record<string, string> } = {};
		if (fs.existsSync(manifestPath))
			manifest = JSON.parse(await fsp.readFile(manifestPath, 'utf8'));
		manifest = {
			name: manifest.name ?? 'installed-nodes',
			private: true,
			...manifest,
			dependencies: { ...(manifest.dependencies ?? {}), [pkg.name]: pkg.version },
		};
		await fsp.writeFile(manifestPath, JSON.stringify(manifest, null, 2) + '\n');

		let kept: string | undefined;
		if (options.keepTarball) {
			kept = path.join(userFolder, path.basename(tarball));
			await fsp.copyFile(tarball, kept);
		}
		return {
			packageDir,
			name: pkg.name,
			version: pkg.version,
			tarballName: path.basename(tarball),
			tarballPath: kept,
			nodes: pkg.n8n?.nodes ?? [],
			credentials: pkg.n8n?.credentials ?? [],
		};
	} finally {
		await fsp.rm(work, { recursive: true, force: true });
	}
}

/** The caller's env minus npm's per-script variables (which would leak `npm test`'s config). */
function npmEnv(): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [k, v] of Object.entries(process.env)) {
		if (/^npm_(config|package|lifecycle)_/i.test(k)) continue;
		env[k] = v;
	}
	return env;
}
