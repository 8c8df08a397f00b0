import {
	NodeConnectionTypes,
	type INodeExecutionData,
	type INodeProperties,
	type INodeType,
	type INodeTypeDescription,
	type IPollFunctions,
} from 'n8n-workflow';

import { optionsCollection } from './descriptions/common';
import { ACCOUNT_TYPE_OPTIONS } from './account/accountProperties';
import { pickerField, type NodeVersion } from './descriptions/pickers';
import { searchCoins, searchContracts } from './methods/listSearch';
import { pollFundingRateCrossing } from './trigger/fundingRate';
import { FUNDING_RATE_CROSSING } from './trigger/fundingRate/crossing';
import { EVENT_NAMES, eventOptions, eventOptionsV2 } from './trigger/pollEvents';
import { pollTradingService } from './trigger/poll';
import { pollDepositReceived } from './trigger/deposits';
import {
	DEFAULT_LATE_WINDOW_MINUTES,
	DEPOSIT_RECEIVED,
	EVENTS_WITH_DIRECTION,
	FUTURES_ORDER_FILLED,
	MAX_LATE_WINDOW_MINUTES,
	ORDER_FILLED,
} from './trigger/pollParameters';

/** Shown for every event that reads records (history records or fills). */
const FOR_RECORDS = { hide: { event: [FUNDING_RATE_CROSSING] } };

const NOT_FOR_FILLS = {
	hide: { event: [ORDER_FILLED, FUNDING_RATE_CROSSING, FUTURES_ORDER_FILLED, DEPOSIT_RECEIVED] },
};

/** Filters › Coin and Symbol: for the history records and Order Filled. */
const FOR_FILTERS = { hide: { event: [FUNDING_RATE_CROSSING, FUTURES_ORDER_FILLED] } };

const FUTURES_FILLS_PROPERTIES: INodeProperties[] = [
	pickerField(
		2,
		'contracts',
		{
			displayName: 'Contract',
			name: 'contract',
			type: 'string',
			default: '',
			description:
				'Only fills of this futures contract, e.g. BTCUSDT-PERPETUAL. Empty: every contract the exchange lists (one request per contract each poll).',
			displayOptions: { show: { '@version': [2], event: [FUTURES_ORDER_FILLED] } },
		},
		{ description: 'Only fills of this futures contract; empty: every contract' },
	),
];

const FOR_CROSSING = { show: { '@version': [2], event: [FUNDING_RATE_CROSSING] } };

/**
 * The Filters collection. Version 2 picks the Coin from a list; the Symbol stays typed text, as the
 * records that carry one (funding fees) name futures contracts, which the spot symbol list lacks.
 */
function filtersOf(version: NodeVersion): INodeProperties {
	return {
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: { show: { '@version': [version] }, ...FOR_FILTERS },
		options: [
			pickerField(
				version,
				'coins',
				{
					displayName: 'Coin',
					name: 'coin',
					type: 'string',
					default: '',
					placeholder: 'e.g. USDT',
					description:
						'Only records whose coin is exactly this. The match is exact and case-sensitive: "usdt" does not match USDT. Not for Order Filled: a fill has no single coin, so the trigger refuses it there (use Symbol).',
				},
				{
					description:
						'Only records of this coin. Not for Order Filled: a fill has no single coin, so the trigger refuses it there (use Symbol).',
				},
			),
			{
				displayName: 'Symbol',
				name: 'symbol',
				type: 'string',
				default: '',
				placeholder: 'e.g. BTCUSDT-PERPETUAL',
				description:
					'Only records whose symbol is exactly this (exact, case-sensitive). Funding fee records carry a symbol; records without one never match. For Order Filled, the trading pair of the fills (e.g. BTCUSDT), also sent to the exchange.',
			},
		],
	};
}

const CROSSING_PROPERTIES: INodeProperties[] = [
	{
		displayName:
			"Fires once each time the contract's current funding rate crosses the threshold, not on every poll while it stays beyond it. The first poll after activation only remembers where the rate is; use Fetch Test Event to see the current rate.",
		name: 'crossingNotice',
		type: 'notice',
		default: '',
		displayOptions: FOR_CROSSING,
	},
	pickerField(2, 'contracts', {
		displayName: 'Contract',
		name: 'symbol',
		type: 'string',
		required: true,
		default: '',
		description: 'The futures contract whose funding rate is watched',
		displayOptions: FOR_CROSSING,
	}),
	{
		displayName: 'Direction',
		name: 'crossing',
		type: 'options',
		default: 'above',
		options: [
			{
				name: 'Rises Above',
				value: 'above',
				description: 'Fires when the rate goes from at or below the threshold to above it',
			},
			{
				name: 'Falls Below',
				value: 'below',
				description: 'Fires when the rate goes from at or above the threshold to below it',
			},
		],
		description: 'Which way the rate must cross the threshold',
		displayOptions: FOR_CROSSING,
	},
	{
		displayName: 'Threshold (%)',
		name: 'threshold',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 0.05',
		description:
			'The funding rate in percent: 0.05 means 0.05 % (a rate of 0.0005). May be negative, e.g. -0.01 with Falls Below. A rate equal to the threshold has not crossed it.',
		displayOptions: FOR_CROSSING,
	},
	{
		displayName: 'Also Fire When the Rate Comes Back',
		name: 'fireWhenBack',
		type: 'boolean',
		default: false,
		description:
			"Whether to also start the workflow when the rate returns to the threshold or its near side (the item's event is back, a crossing's is crossed). n8n saves the trigger's state only when it fires, so this also keeps a restart of n8n from missing a crossing whose return and new rise came within one funding period.",
		displayOptions: FOR_CROSSING,
	},
];

const properties: INodeProperties[] = [
	{
		displayName:
			'Fires once for every new record of the chosen kind in the account history (or every new fill of your orders, for Order Filled), oldest first. The first poll after activation only remembers what already exists; use Fetch Test Event to see the latest record.',
		name: 'notice',
		type: 'notice',
		default: '',
		displayOptions: FOR_RECORDS,
	},
	{
		displayName: 'Event',
		name: 'event',
		type: 'options',
		required: true,
		default: 32,
		options: eventOptions,
		description:
			'Which kind of account history record starts the workflow, or Order Filled: every fill of your orders',
		displayOptions: { show: { '@version': [1] } },
	},
	{
		displayName: 'Event',
		name: 'event',
		type: 'options',
		required: true,
		default: 32,
		options: eventOptionsV2,
		description:
			"Which kind of account history record starts the workflow, Order Filled: every fill of your orders (Futures Order Filled: of your futures orders), or a contract's funding rate crossing a threshold",
		displayOptions: { show: { '@version': [2] } },
	},
	...CROSSING_PROPERTIES,
	...FUTURES_FILLS_PROPERTIES,
	{
		displayName: 'Account Type',
		name: 'accountType',
		type: 'options',
		default: 0,
		options: ACCOUNT_TYPE_OPTIONS,
		description:
			'Only records of this kind of account. Custody account records need a master-account API key.',
		displayOptions: NOT_FOR_FILLS,
	},
	{
		displayName: 'Direction',
		name: 'direction',
		type: 'options',
		default: 'both',
		options: [
			{
				name: 'Both',
				value: 'both',
				description:
					'Every record. A transfer between two of your accounts shows up twice with a master key: once per account.',
			},
			{
				name: 'Incoming',
				value: 'incoming',
				description: 'Only credits: records with a positive change',
			},
			{
				name: 'Outgoing',
				value: 'outgoing',
				description: 'Only debits: records with a negative change',
			},
		],
		description: 'Whether money came in, went out, or either',
		displayOptions: { show: { event: EVENTS_WITH_DIRECTION } },
	},
	filtersOf(1),
	filtersOf(2),
	{
		...optionsCollection([
			{
				displayName: 'Late Records Window (Minutes)',
				name: 'lateWindowMinutes',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: MAX_LATE_WINDOW_MINUTES },
				default: DEFAULT_LATE_WINDOW_MINUTES,
				description:
					'How far behind the newest record (or fill) each poll looks again, for records the service lists late. A record that shows up later than this after its time is not emitted.',
			},
		]),
		displayOptions: FOR_RECORDS,
	},
];

export class TradingServiceTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Trading Service Trigger',
		name: 'tradingServiceTrigger',
		icon: { light: 'file:tradingService.svg', dark: 'file:tradingService.dark.svg' },
		group: ['trigger'],
		version: [1, 2],
		defaultVersion: 2,
		subtitle: `={{ ${JSON.stringify(EVENT_NAMES)}[$parameter["event"]] }}`,
		description:
			"Starts the workflow when funding fees, transfers, deposits, withdrawals, trades or fees appear in the Trading Service account history, when your orders fill, or when a contract's funding rate crosses a threshold",
		defaults: { name: 'Trading Service Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'tradingServiceApi', required: true }],
		properties,
	};

	methods = { listSearch: { searchCoins, searchContracts } };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		if (this.getNodeParameter('event') === FUNDING_RATE_CROSSING) {
			return await pollFundingRateCrossing(this);
		}
		if (this.getNodeParameter('event') === DEPOSIT_RECEIVED) return await pollDepositReceived(this);
		return await pollTradingService.call(this);
	}
}
