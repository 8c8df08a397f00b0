import type { INodePropertyOptions } from 'n8n-workflow';

import { FLOW_TYPES } from '../helpers/flowTypes';
import { FUNDING_RATE_CROSSING } from './fundingRate/crossing';
import { DEPOSIT_RECEIVED, FUTURES_ORDER_FILLED, ORDER_FILLED } from './pollParameters';

/** The polling trigger's Event options (version 1, version 2) and the names its subtitle shows. */

const ORDER_FILLED_NAME = 'Order Filled';
const FUTURES_ORDER_FILLED_NAME = 'Futures Order Filled';
const FUNDING_RATE_CROSSING_NAME = 'Funding Rate Crosses a Threshold';
const DEPOSIT_RECEIVED_NAME = 'Deposit Received';

/** What the subtitle shows for each event, by value. */
export const EVENT_NAMES: Record<string, string> = {
	...Object.fromEntries(FLOW_TYPES.map((flowType) => [flowType.value, flowType.eventName])),
	[ORDER_FILLED]: ORDER_FILLED_NAME,
	[FUNDING_RATE_CROSSING]: FUNDING_RATE_CROSSING_NAME,
	[FUTURES_ORDER_FILLED]: FUTURES_ORDER_FILLED_NAME,
	[DEPOSIT_RECEIVED]: DEPOSIT_RECEIVED_NAME,
};

export const eventOptions: INodePropertyOptions[] = [
	...FLOW_TYPES.map((flowType) => ({
		name: flowType.eventName,
		value: flowType.value,
		description: `${flowType.eventDetail}. The exchange keeps these records for ${flowType.retentionDays} days.`,
	})),
	{
		name: ORDER_FILLED_NAME,
		value: ORDER_FILLED,
		description:
			"Every fill of one of your orders (a trade from the account's trade list), partial fills included: one item per fill. The exchange keeps fills for 30 days.",
	},
].sort((a, b) => a.name.localeCompare(b.name));

/** Version 2's events: version 1's, Funding Rate Crosses a Threshold, Futures Order Filled and Deposit Received. */
export const eventOptionsV2: INodePropertyOptions[] = [
	...eventOptions,
	{
		name: FUTURES_ORDER_FILLED_NAME,
		value: FUTURES_ORDER_FILLED,
		description:
			"Every fill of one of your futures orders (a trade from the futures account's fill list), partial fills and liquidations included: one item per fill. The exchange keeps fills for 30 days.",
	},
	{
		name: DEPOSIT_RECEIVED_NAME,
		value: DEPOSIT_RECEIVED,
		description:
			"Every deposit to the custody account that succeeds (the deposit list's status 4), once, whether it succeeds at once or polls after it was created: one item per deposit",
	},
	{
		name: FUNDING_RATE_CROSSING_NAME,
		value: FUNDING_RATE_CROSSING,
		description:
			"A futures contract's current funding rate rises above or falls below a threshold: one item per crossing, before the fee is charged",
	},
].sort((a, b) => a.name.localeCompare(b.name));
