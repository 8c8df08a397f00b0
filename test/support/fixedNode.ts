/**
 * A fixed Trading Service node for the pure helpers that name the node in their errors, a run for
 * the parts that send nothing, and reading what a check refused.
 */
import { NodeOperationError, type INode } from 'n8n-workflow';

export const node: INode = {
	id: 'node',
	name: 'Trading Service',
	type: 'n8n-nodes-trading-service.tradingService',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

/** A run for the parts that send nothing: any use of its client, or of its account, fails the test. */
export const offline = {
	node,
	client: undefined as never,
	lostRun: undefined,
	account: (): never => {
		throw new Error('an offline run has no account to act on');
	},
};

/** The NodeOperationError `check` throws; fails the test if it throws none. */
export function refusal(check: () => unknown, what = 'the value'): NodeOperationError {
	try {
		check();
	} catch (error) {
		expect(error).toBeInstanceOf(NodeOperationError);
		return error as NodeOperationError;
	}
	throw new Error(`expected ${what} to be refused`);
}
