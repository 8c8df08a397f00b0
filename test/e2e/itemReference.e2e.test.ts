/**
 * The direct read of mapped fields (nodes/TradingService/helpers/itemReference.ts) against a real
 * n8n 2.41.1's evaluation on Node 24, with each expression engine n8n 2.41.1 has.
 *
 * A test-only community package, n8n-nodes-expression-probe (test/e2e/fixtures/expression-probe),
 * is installed from `npm pack` next to the trading package. Its items node emits items built in
 * n8n's own process (so -0, NaN, undefined and class instances reach the next node as they are);
 * its probe node holds parameters of many types whose stored values are expressions of many
 * shapes, and for every item and parameter records `this.getNodeParameter(name, i)` (n8n's value,
 * as RunContext asks n8n) and `resolveFromItem(stored, item.json)` from the INSTALLED trading
 * package's dist (the direct read RunContext uses). Wherever the direct read gives a value, it
 * must be n8n's, type included (-0 apart from 0, strings byte for byte).
 */
import * as fsp from 'fs/promises';
import * as path from 'path';

import { executeWorkflow, importWorkflow, type ExecuteResult } from '../../tools/n8n/cli';
import {
	createN8nEnv,
	createTempUserFolder,
	removeUserFolder,
	type N8nEnv,
} from '../../tools/n8n/environment';
import { QUIET_N8N_ENV } from '../../tools/n8n/fixture';
import { packAndInstallPackage } from '../../tools/n8n/package';
import { getNodeItems } from '../../tools/n8n/run-data';
import { REPO_ROOT, ensureRuntime } from '../../tools/n8n/runtime';
import { describeE2E } from '../support/describe-e2e';

const PROBE_DIR = path.join(REPO_ROOT, 'test', 'e2e', 'fixtures', 'expression-probe');

/** A value as the probe encodes it: [kind, payload] (see cases.js's `encode`). */
type Encoded = [string, ...unknown[]];
type ProbeRow = [path: string, n8n: Encoded, direct: Encoded];
interface ProbeItem {
	engine: string;
	label: string;
	seen: Encoded;
	rows: ProbeRow[];
}
interface ProbeCases {
	SHAPES: unknown[];
	parameterPaths(): string[];
	storedParameters(): Record<string, unknown>;
	valueAt(parameters: Record<string, unknown>, path: string): unknown;
}

// The probe's plain-JS cases, shared with the probe nodes n8n runs.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const cases = require(path.join(PROBE_DIR, 'nodes', 'cases.js')) as ProbeCases;

const WORKFLOW_ID = 'itemReferenceProbe';
const PROBE = 'Expression Probe';

const WORKFLOW = {
	id: WORKFLOW_ID,
	name: 'Item reference probe',
	active: false,
	settings: { executionOrder: 'v1' },
	nodes: [
		{
			id: 'probe-start',
			name: 'Start',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
		{
			id: 'probe-items',
			name: 'Items',
			type: 'n8n-nodes-expression-probe.expressionProbeItems',
			typeVersion: 1,
			position: [220, 0],
			parameters: {},
		},
		{
			id: 'probe-node',
			name: PROBE,
			type: 'n8n-nodes-expression-probe.expressionProbe',
			typeVersion: 1,
			position: [440, 0],
			parameters: cases.storedParameters(),
		},
	],
	connections: {
		Start: { main: [[{ node: 'Items', type: 'main', index: 0 }]] },
		Items: { main: [[{ node: PROBE, type: 'main', index: 0 }]] },
	},
};

/**
 * The engines of n8n 2.41.1 (`N8N_EXPRESSION_ENGINE`: legacy, vm, quickjs; vm is the default).
 * `undefined` leaves the variable unset: the default, which must report itself as vm.
 */
const ENGINES: Array<{ name: string; setting: string | undefined; expect: string }> = [
	{ name: 'default (vm)', setting: undefined, expect: 'vm' },
	{ name: 'legacy', setting: 'legacy', expect: 'legacy' },
	{ name: 'quickjs', setting: 'quickjs', expect: 'quickjs' },
];

interface EngineRun {
	result: ExecuteResult;
	/** Every item's rows, read from the file the probe wrote. */
	items: ProbeItem[];
	/** How many items the probe said it wrote (its one output item). */
	expectedItems: number;
}

interface Mismatch {
	engine: string;
	item: string;
	parameter: string;
	stored: unknown;
	n8n: Encoded;
	direct: Encoded;
}

const same = (a: Encoded, b: Encoded): boolean => JSON.stringify(a) === JSON.stringify(b);

/** A short form of an encoded value for the failure report. */
const brief = (value: Encoded): string => JSON.stringify(value).slice(0, 160);

/** One line per parameter that differs: its stored value, the items, and the first difference. */
function summarize(mismatches: Mismatch[]): string[] {
	const byParameter = new Map<string, Mismatch[]>();
	for (const mismatch of mismatches) {
		const key = `${mismatch.parameter} ${JSON.stringify(mismatch.stored)}`;
		byParameter.set(key, [...(byParameter.get(key) ?? []), mismatch]);
	}
	const lines = [...byParameter].map(([key, list]) => {
		const first = list[0];
		return `${first.engine}: ${key} differs on ${list.length} item(s) (${list
			.slice(0, 3)
			.map((m) => m.item)
			.join(
				', ',
			)}${list.length > 3 ? ', …' : ''}); e.g. "${first.item}": n8n ${brief(first.n8n)}, direct ${brief(first.direct)}`;
	});
	const shown = 30;
	return lines.length > shown
		? [...lines.slice(0, shown), `… and ${lines.length - shown} more parameters`]
		: lines;
}

describeE2E('itemReference: direct reads equal a real n8n 2.41.1 evaluation', () => {
	const folders: string[] = [];
	const runs = new Map<string, EngineRun>();
	const stored = cases.storedParameters();

	beforeAll(async () => {
		await ensureRuntime({ quiet: true });
		const base = await createTempUserFolder('n8n-item-reference-');
		folders.push(base);
		await packAndInstallPackage(base);
		await packAndInstallPackage(base, { repoRoot: PROBE_DIR });
		await importWorkflow(await createN8nEnv({ userFolder: base, extra: QUIET_N8N_ENV }), WORKFLOW);
		// One copy of the user folder (database included) per engine, so the runs go side by side.
		const envs: N8nEnv[] = [];
		for (const engine of ENGINES) {
			const folder = `${base}-${engine.expect}`;
			await fsp.cp(base, folder, { recursive: true });
			folders.push(folder);
			const extra: Record<string, string> = { ...QUIET_N8N_ENV };
			if (engine.setting !== undefined) extra.N8N_EXPRESSION_ENGINE = engine.setting;
			extra.EXPRESSION_PROBE_OUT = path.join(folder, 'probe-rows.json');
			envs.push(await createN8nEnv({ userFolder: folder, extra }));
		}
		const results = await Promise.all(envs.map((env) => executeWorkflow(env, WORKFLOW_ID)));
		ENGINES.forEach((engine, index) => {
			const result = results[index];
			if (!result.ok) {
				throw new Error(
					`probe workflow failed with the ${engine.name} engine (exit ${result.exitCode}): ${JSON.stringify(result.error)}\n${result.stdout.slice(-3000)}\n${result.stderr.slice(-3000)}`,
				);
			}
			const [summary] = getNodeItems(result.run, PROBE) as unknown as Array<{ items: number }>;
			runs.set(engine.name, { result, items: [], expectedItems: summary?.items ?? -1 });
		});
		for (const [index, engine] of ENGINES.entries()) {
			const file = path.join(`${base}-${engine.expect}`, 'probe-rows.json');
			const items = JSON.parse(await fsp.readFile(file, 'utf8')) as ProbeItem[];
			const found = runs.get(engine.name)!;
			if (items.length !== found.expectedItems)
				throw new Error(
					`the ${engine.name} probe wrote ${items.length} items, said ${found.expectedItems} (${index})`,
				);
			found.items = items;
		}
	});

	afterAll(async () => {
		if (process.env.E2E_KEEP_USER_FOLDER) process.stderr.write(`e2e: kept ${folders.join(' ')}\n`);
		else for (const folder of folders) await removeUserFolder(folder);
	});

	function run(engine: string): EngineRun {
		const found = runs.get(engine);
		if (!found) throw new Error(`no run for the ${engine} engine`);
		return found;
	}

	/** The n8n and direct values of one parameter for the item labelled `label`. */
	function pair(engine: string, label: string, parameter: string): ProbeRow {
		const item = run(engine).items.find((candidate) => candidate.label === label);
		const row = item?.rows.find(([name]) => name === parameter);
		if (!row) throw new Error(`no row ${parameter} for item "${label}" (${engine})`);
		return row;
	}

	/** The parameter whose stored value is `value` (a scalar shape). */
	function shape(value: unknown): string {
		const index = cases.SHAPES.indexOf(value);
		if (index < 0) throw new Error(`no shape ${JSON.stringify(value)}`);
		return `shape${index}`;
	}

	describe.each(ENGINES.map((engine) => [engine.name, engine.expect]))(
		'%s engine',
		(engine, expected) => {
			it(`runs with the ${expected} engine on every item`, () => {
				const { items } = run(engine);
				expect(items.length).toBeGreaterThan(50);
				expect(new Set(items.map((item) => item.engine))).toEqual(new Set([expected]));
			});

			it("gives n8n's exact value wherever the direct read gives one, and never throws", () => {
				const { items } = run(engine);
				const mismatches: Mismatch[] = [];
				const thrown: string[] = [];
				let direct = 0;
				let fellBack = 0;
				for (const item of items) {
					for (const [parameter, n8n, read] of item.rows) {
						if (read[0] === 'threw') thrown.push(`${item.label} ${parameter}: ${String(read[1])}`);
						if (read[0] === 'undefined') {
							fellBack++;
							continue;
						}
						direct++;
						if (!same(n8n, read)) {
							mismatches.push({
								engine,
								item: item.label,
								parameter,
								stored: cases.valueAt(stored, parameter),
								n8n,
								direct: read,
							});
						}
					}
				}
				const total = direct + fellBack;
				process.stdout.write(
					`itemReference e2e, ${engine} engine: ${direct} direct / ${fellBack} fell back / ${total} pairs (${cases.parameterPaths().length} parameters × ${items.length} items), ${mismatches.length} mismatches\n`,
				);
				expect(thrown).toEqual([]);
				expect(summarize(mismatches)).toEqual([]);
				// Most pairs are plain references to values the direct read accepts: a direct read that
				// always fell back would pass the comparison above and prove nothing.
				expect(direct).toBeGreaterThan(2000);
				expect(fellBack).toBeGreaterThan(1000);
			});

			it('sees the values JSON loses (-0, NaN, undefined, class instances) as the items node made them', () => {
				// The items reach the probe from a node in n8n's own process, not through JSON.
				const seen = (label: string) =>
					run(engine).items.find((item) => item.label === label)?.seen;
				expect(seen('negative zero')).toEqual(['number', '-0']);
				expect(seen('NaN')).toEqual(['number', 'NaN']);
				expect(seen('undefined')).toEqual(['undefined']);
				expect(seen('class instance')?.[0]).toBe('instance of Holder');
			});

			it.each([
				['={{ $json.v }}', 'string', ['string', 'abc']],
				['={{ $json.v }}', 'negative zero', ['number', '-0']],
				['={{ $json.v }}', '123456789012345678', ['number', '123456789012345680']],
				['={{ $json["a b"] }}', 'unicode string', ['string', 'héllo wörld 😀 ünï']],
				['={{ $json.nested.deep.v }}', 'plain nested values', ['number', '12.5']],
				['={{ $json.arr[1][0] }}', 'plain nested values', ['boolean', false]],
				['={{ $json.legs[0] }}', 'plain nested values', ['number', '-1']],
			])('reads %s of the "%s" item directly, as n8n evaluates it', (stored, label, value) => {
				const [, n8n, direct] = pair(engine, label, shape(stored));
				expect(direct).toEqual(value);
				expect(n8n).toEqual(value);
			});

			it('resolves collections and resource locators whole, and refuses them whole', () => {
				const [, n8nRl, directRl] = pair(engine, 'string', 'rl');
				expect(directRl).toEqual(n8nRl);
				expect(directRl).toEqual([
					'object',
					[
						['__rl', ['boolean', true]],
						['mode', ['string', 'id']],
						['value', ['string', 'abc']],
					],
				]);
				const [, n8nColl, directColl] = pair(engine, 'string', 'coll');
				expect(directColl).toEqual(n8nColl);
				expect(directColl[0]).toBe('object');
				expect(pair(engine, 'string', 'collMixed')[2]).toEqual(['undefined']);
				expect(pair(engine, 'string', 'rowsMixed')[2]).toEqual(['undefined']);
				expect(pair(engine, 'string', 'rlComputed')[2]).toEqual(['undefined']);
			});

			it('falls back for values n8n would convert or refuse', () => {
				for (const label of [
					'NaN',
					'Infinity',
					'null',
					'undefined',
					'Date',
					'object',
					'array',
					'bigint',
					'boxed string',
				])
					expect([label, pair(engine, label, shape('={{ $json.v }}'))[2]]).toEqual([
						label,
						['undefined'],
					]);
				expect(pair(engine, 'inherited values', shape('={{ $json.v }}'))[2]).toEqual(['undefined']);
				expect(pair(engine, 'string', shape('={{ $json.v.length }}'))[2]).toEqual(['undefined']);
				expect(pair(engine, 'string', shape('={{ $json.constructor }}'))[2]).toEqual(['undefined']);
			});
		},
	);
});
