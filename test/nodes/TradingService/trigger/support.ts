/**
 * Shared by the trigger's unit tests: fixed parameters for readSettings, history records, funding
 * fees added to the sandbox, and a probe node that runs a piece of the trigger inside one real
 * poll (n8n-core's poll functions against the sandbox).
 */
import type { IDataObject, INode, INodeType, IPollFunctions } from 'n8n-workflow';

import type { HistoryRecord } from '../../../../nodes/TradingService/helpers/historyPage';
import { TradingServiceTrigger } from '../../../../nodes/TradingService/TradingServiceTrigger.node';
import { DEMO_ACCOUNTS, type Sandbox } from '../../../../sandbox';
import { credentialsFor } from '../../../../tools/harness/node';
import { PollRunner } from '../../../../tools/harness/poll';
import { triggerCredentialTypes, triggerNode } from '../../../../tools/harness/trigger';

export const MINUTE = 60_000;

/** The state query of a funding-fee trigger over any account type. */
export const QUERY = 'flowType=32;accountType=any';

/** A fixed trigger node, for the pure helpers that name it in their errors. */
export const node: INode = {
	id: 'trigger',
	name: 'Trading Service Trigger',
	type: 'n8n-nodes-trading-service.tradingServiceTrigger',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

/** The part of the poll functions readSettings uses, over fixed parameters. */
export function pollFunctions(parameters: IDataObject, of: INode = node): IPollFunctions {
	return {
		getNode: () => of,
		getNodeParameter: (name: string, fallback?: unknown) => parameters[name] ?? fallback,
	} as unknown as IPollFunctions;
}

/** A history record with only an id and a created time. */
export const record = (id: string, created: number): HistoryRecord => ({
	id,
	created: String(created),
});

/** Adds funding fee records (main contract account) to the sandbox's history. */
export function addFundingFees(
	sandbox: Sandbox,
	fees: Array<{ created: number; change: string; coin?: string }>,
) {
	return sandbox.addRecords(
		fees.map(({ created, change, coin }) => ({
			accountId: DEMO_ACCOUNTS.mainContract,
			flowTypeValue: 32,
			...(coin === undefined ? {} : { coin }),
			change,
			created: String(created),
		})),
	);
}

const PROBE_TYPE = 'n8n-nodes-trading-service.triggerProbe';

/**
 * Runs `use` in one poll of a trigger node (funding fees, any account type, then `parameters`)
 * whose poll() is only `use`, and returns what it returned or throws what it threw.
 */
export async function inPoll<T>(
	sandbox: Sandbox,
	use: (context: IPollFunctions) => Promise<T>,
	{
		parameters = {},
		mode = 'trigger',
	}: { parameters?: IDataObject; mode?: 'trigger' | 'manual' } = {},
): Promise<T> {
	let outcome: { value: T } | { error: unknown } | undefined;
	const probe: INodeType = {
		description: { ...new TradingServiceTrigger().description, name: 'triggerProbe' },
		async poll(this: IPollFunctions) {
			try {
				outcome = { value: await use(this) };
			} catch (error) {
				outcome = { error };
			}
			return null;
		},
	};
	await new PollRunner({
		node: { ...triggerNode(parameters), type: PROBE_TYPE },
		nodeTypes: { [PROBE_TYPE]: probe },
		credentialTypes: triggerCredentialTypes,
		credentials: { tradingServiceApi: credentialsFor(sandbox) as never },
	}).poll(mode);
	if (outcome === undefined) throw new Error('the probe did not poll');
	if ('error' in outcome) throw outcome.error;
	return outcome.value;
}
