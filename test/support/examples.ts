import { NODE_TYPES, SANDBOX_CREDENTIAL, type Workflow } from '../../tools/n8n/examples';

/**
 * What every shipped example must be, whatever it does: a fixed 16-character id, inactive, at least
 * `minOwnNodes` nodes of this package (each of a type the package installs, each on the sandbox
 * credential), and connections that only join nodes of the workflow.
 */
export function expectExampleShape(workflow: Workflow, minOwnNodes = 1): void {
	expect(workflow.id).toMatch(/^[A-Za-z0-9]{16}$/);
	expect(workflow.active).toBe(false);
	const ours = workflow.nodes.filter((node) => node.type.startsWith('n8n-nodes-trading-service.'));
	expect(ours.length).toBeGreaterThanOrEqual(minOwnNodes);
	for (const node of ours) {
		expect(Object.values(NODE_TYPES)).toContain(node.type);
		expect(node.credentials).toEqual({ tradingServiceApi: { ...SANDBOX_CREDENTIAL } });
	}
	const names = new Set(workflow.nodes.map((node) => node.name));
	for (const [source, outputs] of Object.entries(workflow.connections)) {
		expect(names).toContain(source);
		for (const list of Object.values(outputs).flat())
			for (const connection of list) expect(names).toContain(connection.node);
	}
}
