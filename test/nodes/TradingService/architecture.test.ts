import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

// The structure of the product code, read from its own import statements (type-only imports
// included): no import circles, and each folder imports only what its job allows
// (docs/architecture.md).

const ROOT = resolve(__dirname, '../../..');
const PRODUCT = ['nodes', 'credentials'];

function sourceFiles(folder: string): string[] {
	return readdirSync(folder).flatMap((name) => {
		const path = join(folder, name);
		if (statSync(path).isDirectory()) return sourceFiles(path);
		return path.endsWith('.ts') ? [path] : [];
	});
}

/** What a relative module specifier names: a .ts file, or a folder's index.ts. */
function resolveImport(from: string, specifier: string): string {
	const base = resolve(dirname(from), specifier);
	for (const candidate of [`${base}.ts`, join(base, 'index.ts')]) {
		try {
			if (statSync(candidate).isFile()) return candidate;
		} catch {
			// not this one
		}
	}
	throw new Error(`${relative(ROOT, from)}: cannot resolve ${specifier}`);
}

const files = PRODUCT.flatMap((folder) => sourceFiles(join(ROOT, folder)));
const imports = new Map<string, { local: string[]; packages: string[] }>();
for (const file of files) {
	const text = readFileSync(file, 'utf8');
	const specifiers = [...text.matchAll(/^(?:import|export)\b[^;]*?from\s+'([^']+)';/gms)].map(
		(match) => match[1],
	);
	imports.set(relative(ROOT, file), {
		local: specifiers
			.filter((specifier) => specifier.startsWith('.'))
			.map((specifier) => relative(ROOT, resolveImport(file, specifier))),
		packages: specifiers.filter((specifier) => !specifier.startsWith('.')),
	});
}

function circles(): string[][] {
	const found: string[][] = [];
	const state = new Map<string, 'visiting' | 'done'>();
	const stack: string[] = [];
	const visit = (file: string) => {
		if (state.get(file) === 'done') return;
		if (state.get(file) === 'visiting') {
			found.push([...stack.slice(stack.indexOf(file)), file]);
			return;
		}
		state.set(file, 'visiting');
		stack.push(file);
		for (const next of imports.get(file)?.local ?? []) visit(next);
		stack.pop();
		state.set(file, 'done');
	};
	for (const file of imports.keys()) visit(file);
	return found;
}

/** The imports of the files under `folder` that point at `others`. */
function importsInto(folder: string, others: string[]): string[] {
	return [...imports.entries()].flatMap(([file, { local }]) =>
		file.startsWith(folder)
			? local
					.filter((target) => others.some((other) => target.startsWith(other)))
					.map((target) => `${file} -> ${target}`)
			: [],
	);
}

const NODE = 'nodes/TradingService/';

describe('the structure of nodes/ and credentials/', () => {
	it('reads every product file and its imports', () => {
		expect(imports.size).toBeGreaterThan(40);
		expect(imports.get(`${NODE}actions/router.ts`)?.local).toContain(
			`${NODE}actions/runContext.ts`,
		);
	});

	it('has no import circle', () => {
		expect(circles()).toEqual([]);
	});

	it('imports no package but n8n-workflow and node:crypto', () => {
		const packages = new Set([...imports.values()].flatMap(({ packages }) => packages));
		expect([...packages].sort()).toEqual(['n8n-workflow', 'node:crypto']);
	});

	it('transport/ is only HTTP: it knows nothing of operations, helpers, the write engine or the trigger', () => {
		expect(
			importsInto(`${NODE}transport/`, [
				`${NODE}actions/`,
				`${NODE}helpers/`,
				`${NODE}writes/`,
				`${NODE}trigger/`,
				`${NODE}stream/`,
				`${NODE}descriptions/`,
			]),
		).toEqual([]);
	});

	it('helpers/ hold rules only: no HTTP, no write engine, no n8n operation', () => {
		expect(
			importsInto(`${NODE}helpers/`, [
				`${NODE}transport/`,
				`${NODE}writes/`,
				`${NODE}actions/`,
				`${NODE}trigger/`,
			]),
		).toEqual([]);
	});

	it('the write engine serves the operations and never calls them', () => {
		expect(
			importsInto(`${NODE}writes/`, [`${NODE}actions/`, `${NODE}trigger/`, `${NODE}descriptions/`]),
		).toEqual([]);
	});

	it('descriptions/ are node properties only: no rules, HTTP, write engine, operation or trigger', () => {
		expect(
			importsInto(`${NODE}descriptions/`, [
				`${NODE}transport/`,
				`${NODE}helpers/`,
				`${NODE}writes/`,
				`${NODE}actions/`,
				`${NODE}trigger/`,
			]),
		).toEqual([]);
	});

	it('trigger/ reads through the transport and never uses the write engine or an operation', () => {
		expect(
			importsInto(`${NODE}trigger/`, [`${NODE}actions/`, `${NODE}writes/`, `${NODE}descriptions/`]),
		).toEqual([]);
	});

	it('stream/ reads through the transport and never uses the write engine, an operation or the polling trigger', () => {
		expect(
			importsInto(`${NODE}stream/`, [
				`${NODE}actions/`,
				`${NODE}writes/`,
				`${NODE}trigger/`,
				`${NODE}descriptions/`,
			]),
		).toEqual([]);
	});

	it('no folder but stream/ and the node files uses the user data stream', () => {
		expect(
			importsInto(NODE, [`${NODE}stream/`]).filter(
				(line) =>
					!line.startsWith(`${NODE}stream/`) &&
					!line.startsWith(`${NODE}TradingServiceRealTimeTrigger`),
			),
		).toEqual([]);
	});

	it('the credential imports only the constants and its own folder', () => {
		expect(
			importsInto('credentials/', [NODE]).filter((line) => !line.endsWith(`${NODE}constants.ts`)),
		).toEqual([]);
	});
});
