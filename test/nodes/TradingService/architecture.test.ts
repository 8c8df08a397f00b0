import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

import ts from 'typescript';

import { DECLARED_ENDPOINTS } from './transport/support';

// The structure of the product code, read from its own import statements (type-only imports
// included): no import circles between files or folders, each folder imports only what its job
// allows, and files and functions stay short enough to read (docs/architecture.md).

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

/** The room a product file is in: its folder under nodes/TradingService/, or the file itself at the top. */
function roomOf(file: string): string {
	if (file.startsWith('credentials/')) return 'credentials';
	const inside = file.slice(NODE.length);
	return inside.includes('/') ? inside.slice(0, inside.indexOf('/')) : inside.replace(/\.ts$/, '');
}

/**
 * What each room may import besides itself (docs/architecture.md, "What may import what"). The
 * node files at the top may import anything.
 */
const MAY_IMPORT: Record<string, string[]> = {
	credentials: [],
	constants: ['credentials'],
	transport: ['constants', 'credentials'],
	helpers: ['constants'],
	descriptions: ['constants'],
	writes: ['constants', 'helpers', 'transport'],
	run: ['constants', 'descriptions', 'helpers', 'transport'],
	orders: ['constants', 'descriptions', 'helpers', 'run', 'transport', 'writes'],
	account: ['constants', 'descriptions', 'helpers', 'run', 'transport'],
	transfers: ['constants', 'descriptions', 'helpers', 'run', 'transport', 'writes', 'account'],
	market: ['constants', 'descriptions', 'helpers', 'run', 'transport', 'orders'],
	futures: ['constants', 'descriptions', 'helpers', 'run', 'transport', 'writes', 'orders'],
	wallet: ['constants', 'descriptions', 'helpers', 'run', 'transport'],
	actions: [
		'constants',
		'descriptions',
		'helpers',
		'run',
		'transport',
		'writes',
		'orders',
		'transfers',
		'market',
		'account',
		'futures',
		'wallet',
	],
	methods: ['constants', 'descriptions', 'helpers', 'transport', 'orders', 'market', 'futures'],
	trigger: ['constants', 'helpers', 'transport', 'account', 'futures', 'wallet'],
	stream: ['constants', 'helpers', 'transport', 'account', 'orders', 'futures'],
	v1: ['actions', 'descriptions'],
	v2: ['actions', 'descriptions', 'methods'],
};

/**
 * The cohesive families allowed up to FAMILY_LINES lines (docs/architecture.md): the credential
 * (its fields, their checks, authenticate), the key's pacing, the symbol rules, the write engine.
 */
const FAMILIES = [
	'credentials/TradingServiceApi.credentials.ts',
	`${NODE}transport/pacing.ts`,
	`${NODE}orders/symbolRules.ts`,
	`${NODE}writes/engine.ts`,
];
const FILE_LINES = 300;
const FAMILY_LINES = 450;
/**
 * Lines of nodes/ and credentials/ together: 18,900 after issue 50 (from 19,266); issue 51 added
 * futures trading (seven writes, their guardrails and list lookups, four trigger events), 6,081
 * lines in 27 files, so 25,000; issue 52 (the wallet room, Deposit Received, Ed25519 keys, the
 * unified order endpoints, Client Transfer ID) about 1,500 more, so 27,000.
 */
const PRODUCT_LINES = 27_000;
/** File names several rooms use for the same role (besides an operation's, named after it). */
const SHARED_ROLES = new Set(['index.ts', 'endpoints.ts']);

/** The API paths a product file names in string literals ("/api/…", "/quote/…"). */
function apiPaths(file: string): string[] {
	const text = readFileSync(join(ROOT, file), 'utf8');
	const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
	const found: string[] = [];
	const visit = (node: ts.Node) => {
		if (
			(ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) &&
			/^\/(api|quote)\//.test(node.text)
		)
			found.push(node.text);
		ts.forEachChild(node, visit);
	};
	visit(source);
	return found;
}

const linesOf = (file: string) => readFileSync(join(ROOT, file), 'utf8').split('\n').length - 1;

/** Every import from one room into another, as "room -> room". */
function roomImports(): Map<string, Set<string>> {
	const rooms = new Map<string, Set<string>>();
	for (const [file, { local }] of imports) {
		const from = roomOf(file);
		for (const target of local) {
			const to = roomOf(target);
			if (to === from) continue;
			rooms.set(from, (rooms.get(from) ?? new Set()).add(to));
		}
	}
	return rooms;
}

function roomCircles(): string[][] {
	const graph = roomImports();
	const found: string[][] = [];
	const state = new Map<string, 'visiting' | 'done'>();
	const stack: string[] = [];
	const visit = (room: string) => {
		if (state.get(room) === 'done') return;
		if (state.get(room) === 'visiting') {
			found.push([...stack.slice(stack.indexOf(room)), room]);
			return;
		}
		state.set(room, 'visiting');
		stack.push(room);
		for (const next of graph.get(room) ?? []) visit(next);
		stack.pop();
		state.set(room, 'done');
	};
	for (const room of graph.keys()) visit(room);
	return found;
}

/** The functions of a file longer than `most` lines, as "file:line name (N lines)". */
function longFunctions(file: string, most: number): string[] {
	const text = readFileSync(join(ROOT, file), 'utf8');
	const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
	const found: string[] = [];
	const visit = (node: ts.Node) => {
		if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
			const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
			const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
			const lines = end - start + 1;
			const name = node.name?.getText(source) ?? '(anonymous)';
			if (lines > most) found.push(`${file}:${start + 1} ${name} (${lines} lines)`);
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return found;
}

describe('the structure of nodes/ and credentials/', () => {
	it('reads every product file and its imports', () => {
		expect(imports.size).toBeGreaterThan(40);
		expect(imports.get(`${NODE}actions/router.ts`)?.local).toContain(`${NODE}run/runContext.ts`);
	});

	it('has no import circle between files', () => {
		expect(circles()).toEqual([]);
	});

	it('has no import circle between rooms (folders), credentials included', () => {
		expect(roomCircles()).toEqual([]);
	});

	it('imports no package but n8n-workflow and node:crypto', () => {
		const packages = new Set([...imports.values()].flatMap(({ packages }) => packages));
		expect([...packages].sort()).toEqual(['n8n-workflow', 'node:crypto']);
	});

	it('every room imports only what its job allows', () => {
		const breaches = [...imports.entries()].flatMap(([file, { local }]) => {
			const from = roomOf(file);
			const allowed = MAY_IMPORT[from];
			if (allowed === undefined) return [];
			return local
				.filter((target) => roomOf(target) !== from && !allowed.includes(roomOf(target)))
				.map((target) => `${file} -> ${target}`);
		});
		expect(breaches).toEqual([]);
	});

	it('every room is in the table of what it may import', () => {
		const top = new Set([
			'TradingService.node',
			'TradingServiceTrigger.node',
			'TradingServiceRealTimeTrigger.node',
		]);
		const rooms = new Set([...imports.keys()].map(roomOf).filter((room) => !top.has(room)));
		expect([...rooms].filter((room) => MAY_IMPORT[room] === undefined)).toEqual([]);
	});

	it('RunContext does not load the write engine: a write asks for its run’s write side', () => {
		expect(importsInto(`${NODE}run/runContext.ts`, [`${NODE}writes/`])).toEqual([]);
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

	it('no product file is over 300 lines but the named families, none over 450', () => {
		const long = [...imports.keys()]
			.map((file) => [file, linesOf(file)] as const)
			.filter(([file, lines]) => lines > (FAMILIES.includes(file) ? FAMILY_LINES : FILE_LINES))
			.map(([file, lines]) => `${file} (${lines} lines)`);
		expect(long).toEqual([]);
		expect(FAMILIES.filter((file) => !imports.has(file))).toEqual([]);
		// a family keeps its allowance only while it needs it
		expect(FAMILIES.filter((file) => linesOf(file) <= FILE_LINES)).toEqual([]);
	});

	it(`has at most ${PRODUCT_LINES} product lines`, () => {
		const total = [...imports.keys()].reduce((sum, file) => sum + linesOf(file), 0);
		process.stdout.write(`product lines: ${total} in ${imports.size} files\n`);
		expect(total).toBeLessThanOrEqual(PRODUCT_LINES);
	});

	it('no product function is over 80 lines', () => {
		expect([...imports.keys()].flatMap((file) => longFunctions(file, 80))).toEqual([]);
	});

	it('names every API path in exactly one product file: its room’s endpoint declarations', () => {
		const filesOf = new Map<string, Set<string>>();
		for (const file of imports.keys())
			for (const path of apiPaths(file))
				filesOf.set(path, (filesOf.get(path) ?? new Set()).add(file));
		expect(filesOf.size).toBeGreaterThan(30);
		expect(
			[...filesOf].filter(([, files]) => files.size > 1).map(([path, files]) => [path, [...files]]),
		).toEqual([]);
		// the transport's own two requests and the credential test are declared where they are sent
		const outsideRooms: Record<string, string> = {
			'/api/v1/account/type': `${NODE}transport/index.ts`,
			'/api/v1/time': `${NODE}transport/request.ts`,
			'/api/v1/account/checkApiKey': 'credentials/TradingServiceApi.credentials.ts',
		};
		expect(
			[...filesOf]
				.map(([path, files]) => [path, [...files][0]])
				.filter(([path, file]) => !file.endsWith('/endpoints.ts') && outsideRooms[path] !== file),
		).toEqual([]);
	});

	it('declares endpoints in exactly the rooms whose endpoints the transport tests check', () => {
		const rooms = [...imports.keys()]
			.filter((file) => file.startsWith(NODE) && file.endsWith('/endpoints.ts'))
			.map((file) => file.slice(NODE.length, -'/endpoints.ts'.length))
			.sort();
		const checked = new Set(Object.keys(DECLARED_ENDPOINTS).map((name) => name.split('.')[0]));
		checked.delete('transport');
		expect(rooms).toEqual([...checked].sort());
	});

	it('gives two product files one name only where they play one role in different rooms', () => {
		const byName = new Map<string, string[]>();
		for (const file of imports.keys()) {
			const name = file.slice(file.lastIndexOf('/') + 1);
			if (!SHARED_ROLES.has(name) && !name.endsWith('.operation.ts'))
				byName.set(name, [...(byName.get(name) ?? []), file]);
		}
		expect([...byName.values()].filter((files) => files.length > 1)).toEqual([]);
	});
});
