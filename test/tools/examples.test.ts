/**
 * Every workflow in examples/ is run by `npm run demo` and by an e2e test in a real n8n. The list
 * is ALL_EXAMPLES (tools/n8n/examples.ts); the demo has one step per key (DEMO_STEPS, tools/demo.ts)
 * and EXAMPLE_E2E_TESTS names the e2e file of each. Here, fast and without n8n: the folder, the
 * list, the demo's steps and the e2e files agree, so an example cannot be added and forgotten.
 */
import * as fs from 'fs';
import * as path from 'path';
import {
	NodeHelpers,
	type INodeParameters,
	type INodeProperties,
	type INodeType,
	type INodeTypeDescription,
	type IVersionedNodeType,
} from 'n8n-workflow';

import { DEMO_STEPS } from '../../tools/demo';
import {
	ALL_EXAMPLES,
	EXAMPLE_E2E_TESTS,
	EXAMPLES_DIR,
	NODE_TYPES,
	exampleFilesInFolder,
	findNode,
	loadAnyExample,
	type AnyExampleKey,
	type Workflow,
	type WorkflowNode,
} from '../../tools/n8n/examples';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const keys = Object.keys(ALL_EXAMPLES) as AnyExampleKey[];
const PACKAGE_PREFIX = 'n8n-nodes-trading-service.';

interface NodeTypeVersions {
	/** The newest version the node type offers. */
	newest: number;
	/** The node's description in a given version. */
	description(version: number): INodeTypeDescription;
}

/**
 * Every node type the package registers, as n8n names it, with its versions: read from the node
 * classes package.json's `n8n.nodes` lists (their TypeScript sources), never from a list kept
 * here; an action node that is `usableAsTool` also gives n8n's `<name>Tool` type.
 */
function packageNodeTypes(): Map<string, NodeTypeVersions> {
	const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
		n8n: { nodes: string[] };
	};
	const types = new Map<string, NodeTypeVersions>();
	for (const built of manifest.n8n.nodes) {
		const source = path.join(REPO_ROOT, built.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
		const exported =
			jest.requireActual<Record<string, new () => INodeType | IVersionedNodeType>>(source);
		for (const NodeClass of Object.values(exported)) {
			const node = new NodeClass();
			const versioned = 'nodeVersions' in node ? node : undefined;
			const versions = versioned
				? Object.keys(versioned.nodeVersions).map(Number)
				: [(node as INodeType).description.version].flat();
			const description = (version: number): INodeTypeDescription =>
				versioned ? versioned.getNodeType(version).description : (node as INodeType).description;
			const entry = { newest: Math.max(...versions), description };
			types.set(`${PACKAGE_PREFIX}${node.description.name}`, entry);
			if (versions.some((version) => description(version).usableAsTool))
				types.set(`${PACKAGE_PREFIX}${node.description.name}Tool`, entry);
		}
	}
	return types;
}

const NODE_TYPE_VERSIONS = packageNodeTypes();

/** The package's nodes of a workflow that are not on the newest version of their node type. */
function nodesOnAnOldVersion(workflow: Workflow): string[] {
	return workflow.nodes
		.filter((node) => node.type.startsWith(PACKAGE_PREFIX))
		.flatMap((node) => {
			const type = NODE_TYPE_VERSIONS.get(node.type);
			if (!type) return [`"${node.name}": ${node.type} is not a node type of the package`];
			return node.typeVersion < type.newest
				? [`"${node.name}": ${node.type} version ${node.typeVersion}, newest ${type.newest}`]
				: [];
		});
}

/** Parameters n8n itself adds (a polling trigger's Poll Times) or the tool wrapper reads. */
const NOT_IN_DESCRIPTION = new Set(['pollTimes', 'descriptionType', 'toolDescription']);

/**
 * The parameters of a package node that its version does not show (so n8n drops them, or the node
 * never reads them): top-level names, and the names inside a collection.
 */
function parametersNotShown(node: WorkflowNode): string[] {
	const description = NODE_TYPE_VERSIONS.get(node.type)!.description(node.typeVersion);
	const given = node.parameters as INodeParameters;
	const shown =
		NodeHelpers.getNodeParameters(
			description.properties,
			given,
			true,
			false,
			{ ...node, typeVersion: node.typeVersion } as never,
			description,
		) ?? {};
	const problems: string[] = [];
	for (const [name, value] of Object.entries(given)) {
		if (NOT_IN_DESCRIPTION.has(name)) continue;
		if (!(name in shown)) {
			problems.push(`"${node.name}": ${name}`);
			continue;
		}
		const collections = description.properties.filter(
			(p): p is INodeProperties & { options: INodeProperties[] } =>
				p.name === name && p.type === 'collection' && Array.isArray(p.options),
		);
		if (collections.length === 0 || typeof value !== 'object' || value === null) continue;
		const inner = new Set(collections.flatMap((p) => p.options.map((o) => o.name)));
		for (const key of Object.keys(value))
			if (!inner.has(key)) problems.push(`"${node.name}": ${name}.${key}`);
	}
	return problems;
}

describe('examples: every examples/*.json is run by the demo and by an e2e test', () => {
	test('issue 24 housekeeping: every file in examples/ is in ALL_EXAMPLES, and every entry names a file there', () => {
		const listed = keys.map((key) => ALL_EXAMPLES[key].file).sort();
		expect(new Set(listed).size).toBe(listed.length);
		expect(listed).toEqual(exampleFilesInFolder());
		// the folder is not empty by accident (the fills export is the newest)
		expect(listed).toContain('fills-export.json');
	});

	test('each entry matches its file: the workflow id, and the trigger and node names it gives', () => {
		for (const key of keys) {
			const entry = ALL_EXAMPLES[key] as Record<string, string>;
			const workflow = loadAnyExample(key);
			expect({ key, id: workflow.id }).toEqual({ key, id: entry.id });
			for (const [field, name] of Object.entries(entry)) {
				if (field === 'file' || field === 'id') continue;
				expect(() => findNode(workflow, name)).not.toThrow();
			}
		}
		const ids = keys.map((key) => ALL_EXAMPLES[key].id);
		expect(new Set(ids).size).toBe(ids.length);
	});

	test('issue 24 housekeeping: npm run demo has a step for every example, and for nothing else', () => {
		expect(Object.keys(DEMO_STEPS).sort()).toEqual([...keys].sort());
		for (const key of keys) {
			expect(DEMO_STEPS[key].title).not.toBe('');
			expect(typeof DEMO_STEPS[key].run).toBe('function');
		}
	});

	test('issue 24 housekeeping: every example has an e2e test file that exists and names it', () => {
		expect(Object.keys(EXAMPLE_E2E_TESTS).sort()).toEqual([...keys].sort());
		for (const key of keys) {
			const file = path.join(REPO_ROOT, EXAMPLE_E2E_TESTS[key]);
			expect({ key, exists: fs.existsSync(file) }).toEqual({ key, exists: true });
			expect(EXAMPLE_E2E_TESTS[key]).toMatch(/^test\/e2e\/[\w-]+\.e2e\.test\.ts$/);
			const source = fs.readFileSync(file, 'utf8');
			// e.g. EXAMPLES.batchOrders, loadOrderExample('cancelStaleOrders'), V2_EXAMPLES.fillsExport
			expect({ key, named: new RegExp(`[.'"]${key}\\b`).test(source) }).toEqual({
				key,
				named: true,
			});
		}
	});

	test('issue 42: every node of this package in every example is on the newest version its node type offers', () => {
		// The versions come from the node classes: a version 3 added to a node fails this until the
		// examples move to it.
		expect([...NODE_TYPE_VERSIONS.keys()].sort()).toEqual(Object.values(NODE_TYPES).sort());
		expect(NODE_TYPE_VERSIONS.get(NODE_TYPES.action)!.newest).toBeGreaterThanOrEqual(2);
		const old = keys.flatMap((key) =>
			nodesOnAnOldVersion(loadAnyExample(key)).map(
				(problem) => `${ALL_EXAMPLES[key].file}: ${problem}`,
			),
		);
		expect(old).toEqual([]);
	});

	test('issue 42: the version check catches an example node left on version 1', () => {
		const workflow = loadAnyExample('scheduledTransfer');
		expect(nodesOnAnOldVersion(workflow)).toEqual([]);
		findNode(workflow, ALL_EXAMPLES.scheduledTransfer.check).typeVersion = 1;
		expect(nodesOnAnOldVersion(workflow)).toEqual([
			`"${ALL_EXAMPLES.scheduledTransfer.check}": ${NODE_TYPES.action} version 1, newest ${NODE_TYPE_VERSIONS.get(NODE_TYPES.action)!.newest}`,
		]);
		// The tool variant and the polling trigger are held to their own newest versions too.
		const agent = loadAnyExample('agentOpenOrders');
		findNode(agent, ALL_EXAMPLES.agentOpenOrders.cancelTool).typeVersion = 1;
		expect(nodesOnAnOldVersion(agent)).toEqual([
			expect.stringContaining(`${NODE_TYPES.tool} version 1`),
		]);
		const alert = loadAnyExample('fundingFeeAlert');
		findNode(alert, ALL_EXAMPLES.fundingFeeAlert.trigger).typeVersion = 1;
		expect(nodesOnAnOldVersion(alert)).toEqual([
			expect.stringContaining(`${NODE_TYPES.trigger} version 1`),
		]);
	});

	test("issue 42: every parameter of an example's node is one its version shows (no version-1 leftovers)", () => {
		const problems = keys.flatMap((key) =>
			loadAnyExample(key)
				.nodes.filter((node) => node.type.startsWith(PACKAGE_PREFIX))
				.flatMap((node) => parametersNotShown(node).map((p) => `${ALL_EXAMPLES[key].file}: ${p}`)),
		);
		expect(problems).toEqual([]);
		// It catches one: version 2's Create asks Order By for a MARKET order's Amount.
		const dca = loadAnyExample('dcaMarketBuy');
		const buy = findNode(dca, ALL_EXAMPLES.dcaMarketBuy.buy);
		delete buy.parameters.marketOrderBy;
		expect(parametersNotShown(buy)).toEqual([`"${buy.name}": amount`]);
	});

	test('issue 42: every Schedule Trigger example names its timezone, in its settings and in its note', () => {
		for (const key of keys) {
			const workflow = loadAnyExample(key);
			const notes = workflow.nodes.filter((node) => node.type === 'n8n-nodes-base.stickyNote');
			// Every example has a note that says what to change.
			expect({ key, notes: notes.length > 0 }).toEqual({ key, notes: true });
			expect({
				key,
				change: notes.some((n) => /\*\*Change\*\*/.test(String(n.parameters.content))),
			}).toEqual({ key, change: true });
			if (!workflow.nodes.some((node) => node.type === 'n8n-nodes-base.scheduleTrigger')) continue;
			expect({ key, timezone: workflow.settings?.timezone }).toEqual({ key, timezone: 'UTC' });
			expect({
				key,
				says: notes.some((n) =>
					/\*\*UTC\*\*.*Settings → Timezone/.test(String(n.parameters.content)),
				),
			}).toEqual({ key, says: true });
		}
	});

	test('the examples folder is the one the tools read', () => {
		expect(EXAMPLES_DIR).toBe(path.join(REPO_ROOT, 'examples'));
	});
});
