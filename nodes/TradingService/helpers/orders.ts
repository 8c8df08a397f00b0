import { randomBytes } from 'node:crypto';

import {
	sleep,
	type IDataObject,
	type IDisplayOptions,
	type IExecuteFunctions,
	type INode,
	type INodeProperties,
} from 'n8n-workflow';

import {
	DEFAULT_STP_MODE,
	LIMITS,
	ORDER_SIDES,
	ORDER_TYPES,
	STP_MODES,
	TIME_IN_FORCE_BY_TYPE,
	type OrderType,
} from '../constants';
import { isOutcomeUnknown, toNodeError } from '../transport';
import { inputError, oneOf, positiveDecimal, symbol } from './validation';

/** An order ready to send: every value a string, in the order the service documents them. */
export interface OrderParams extends IDataObject {
	symbol: string;
	side: string;
	type: string;
	timeInForce: string;
	quantity?: string;
	amount?: string;
	price?: string;
	newClientOrderId?: string;
	stpMode: string;
}

/** The fields an order may carry (spec §4.3). Anything else is refused rather than dropped. */
export const ORDER_FIELDS = [
	'symbol',
	'side',
	'type',
	'quantity',
	'amount',
	'price',
	'newClientOrderId',
	'timeInForce',
	'stpMode',
] as const;

const CLIENT_ORDER_ID = /^[\x21-\x7e]+$/;

function isAbsent(value: unknown): boolean {
	return value === undefined || value === null || value === '';
}

/**
 * Checks one order against the spec's rules and builds what is sent. `label` turns a field name
 * into what the user calls it (a parameter's display name, or `orders[3].price` in JSON).
 */
export function validateOrder(
	node: INode,
	raw: IDataObject,
	label: (field: string) => string,
	itemIndex?: number,
): OrderParams {
	for (const key of Object.keys(raw)) {
		if (!(ORDER_FIELDS as readonly string[]).includes(key)) {
			throw inputError(node, label(key), 'is not an order field', `Remove it. Order fields are: ${ORDER_FIELDS.join(', ')}.`, itemIndex);
		}
	}
	const order: OrderParams = {
		symbol: symbol(node, label('symbol'), raw.symbol, itemIndex),
		side: oneOf(node, label('side'), raw.side, ORDER_SIDES, itemIndex),
		type: oneOf(node, label('type'), raw.type, ORDER_TYPES, itemIndex),
		timeInForce: '',
		stpMode: DEFAULT_STP_MODE,
	};
	const type = order.type as OrderType;
	const allowedTimeInForce = TIME_IN_FORCE_BY_TYPE[type];
	if (isAbsent(raw.timeInForce)) {
		order.timeInForce = allowedTimeInForce;
	} else if (raw.timeInForce !== allowedTimeInForce) {
		throw inputError(
			node,
			label('timeInForce'),
			`"${String(raw.timeInForce)}" is not allowed for ${type} orders`,
			`${type} orders take time in force ${allowedTimeInForce} only (GTC for LIMIT and LIMIT_MAKER, IOC for MARKET).`,
			itemIndex,
		);
	} else {
		order.timeInForce = allowedTimeInForce;
	}

	if (type === 'MARKET') {
		if (!isAbsent(raw.price)) {
			throw inputError(node, label('price'), 'is not used by MARKET orders', 'Remove the price, or use a LIMIT order.', itemIndex);
		}
		const hasQuantity = !isAbsent(raw.quantity);
		const hasAmount = !isAbsent(raw.amount);
		if (hasQuantity === hasAmount) {
			throw inputError(
				node,
				label(hasQuantity ? 'amount' : 'quantity'),
				hasQuantity ? 'MARKET orders take Quantity or Amount, not both' : 'a MARKET order needs Quantity or Amount',
				'Give exactly one: Quantity (in the base coin) or Amount (cash in the quote coin).',
				itemIndex,
			);
		}
		if (hasQuantity) order.quantity = positiveDecimal(node, label('quantity'), raw.quantity, itemIndex);
		else order.amount = positiveDecimal(node, label('amount'), raw.amount, itemIndex);
	} else {
		if (!isAbsent(raw.amount)) {
			throw inputError(node, label('amount'), `is for MARKET orders only`, `${type} orders take Quantity and Price; remove Amount.`, itemIndex);
		}
		if (isAbsent(raw.price)) {
			throw inputError(node, label('price'), `is required for ${type} orders`, 'Enter the limit price as a decimal, e.g. 50000.5.', itemIndex);
		}
		if (isAbsent(raw.quantity)) {
			throw inputError(node, label('quantity'), `is required for ${type} orders`, 'Enter the quantity in the base coin as a decimal, e.g. 0.01.', itemIndex);
		}
		order.quantity = positiveDecimal(node, label('quantity'), raw.quantity, itemIndex);
		order.price = positiveDecimal(node, label('price'), raw.price, itemIndex);
	}

	if (!isAbsent(raw.stpMode)) order.stpMode = oneOf(node, label('stpMode'), raw.stpMode, STP_MODES, itemIndex);
	if (!isAbsent(raw.newClientOrderId)) {
		const clientOrderId = raw.newClientOrderId;
		if (typeof clientOrderId !== 'string' || clientOrderId.length > LIMITS.clientOrderIdLength || !CLIENT_ORDER_ID.test(clientOrderId)) {
			throw inputError(
				node,
				label('newClientOrderId'),
				typeof clientOrderId === 'string' && clientOrderId.length > LIMITS.clientOrderIdLength
					? `is ${clientOrderId.length} characters long`
					: 'is not a valid client order ID',
				`Use 1 to ${LIMITS.clientOrderIdLength} printable characters without spaces.`,
				itemIndex,
			);
		}
		order.newClientOrderId = clientOrderId;
	}
	return order;
}

/**
 * Client order IDs this node generates. The service refuses an ID it has seen, so a retry that
 * sends the same IDs cannot place an order twice. The IDs must therefore be the same for every
 * attempt of one run of the node (n8n's Retry On Fail, the node's own retry after an unknown
 * outcome, a retried execution, which resumes with the failed one's data), and different for
 * anything else: another execution, a later run of the node in a loop, another n8n instance.
 * Execution ids cannot give that (they restart at 1 in every n8n database), so each execution gets
 * a random nonce kept in the node's execution context, which n8n carries across those retries,
 * plus the node's run index.
 */
export function clientOrderIdPrefix(context: IExecuteFunctions): string {
	const store = typeof context.getContext === 'function' ? context.getContext('node') : {};
	if (typeof store.clientOrderIdNonce !== 'string') store.clientOrderIdNonce = randomBytes(12).toString('hex');
	const runIndex = Number(context.getWorkflowDataProxy(0).$runIndex ?? 0);
	return `n8n-${store.clientOrderIdNonce as string}-${runIndex}`;
}

export function deriveClientOrderId(prefix: string, itemIndex: number, orderIndex: number): string {
	return `${prefix}-${itemIndex}-${orderIndex}`;
}

/** How often a write whose outcome is unknown is sent again, when client order IDs make that safe. */
export const IDEMPOTENT_RETRIES = 2;
const IDEMPOTENT_RETRY_DELAY_MS = 500;

/**
 * Runs a write; if its outcome is unknown and every order in it carries a client order ID, sends it
 * again (the service refuses IDs it has seen, so nothing is placed twice). Otherwise the unknown
 * outcome is passed on as it is.
 */
export async function withIdempotentRetry<T>(
	node: INode,
	allOrdersHaveClientIds: boolean,
	write: () => Promise<T>,
): Promise<T> {
	for (let retry = 0; ; retry++) {
		try {
			return await write();
		} catch (error) {
			if (!isOutcomeUnknown(error) || !allOrdersHaveClientIds || retry >= IDEMPOTENT_RETRIES) {
				throw toNodeError(node, error);
			}
			await sleep(IDEMPOTENT_RETRY_DELAY_MS * 2 ** retry);
		}
	}
}

/**
 * The order fields as node parameters, for Create and the item mode of Create Many. Price, Amount
 * and Time In Force show only for the types that take them. None of the type-dependent fields is
 * marked required, and each time-in-force has its own parameter: when Type is an expression
 * (mapped per item, or filled by an AI agent) n8n cannot tell which of them apply, so it shows
 * them all. The rules are checked per order when the node runs.
 */
export function orderFieldProperties(show: NonNullable<IDisplayOptions['show']>): INodeProperties[] {
	const limitTypes = { ...show, type: ['LIMIT', 'LIMIT_MAKER'] };
	const market = { ...show, type: ['MARKET'] };
	return [
		{
			displayName: 'Symbol',
			name: 'symbol',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'e.g. BTCUSDT',
			description: 'Trading pair, upper case without separator',
			displayOptions: { show },
		},
		{
			displayName: 'Side',
			name: 'side',
			type: 'options',
			default: 'BUY',
			options: [
				{ name: 'Buy', value: 'BUY' },
				{ name: 'Sell', value: 'SELL' },
			],
			displayOptions: { show },
		},
		{
			displayName: 'Type',
			name: 'type',
			type: 'options',
			default: 'LIMIT',
			options: [
				{ name: 'Limit', value: 'LIMIT', description: 'Rests on the book at Price until filled (GTC)' },
				{ name: 'Limit Maker', value: 'LIMIT_MAKER', description: 'A limit order that is rejected if it would trade at once' },
				{ name: 'Market', value: 'MARKET', description: 'Trades at once at the best available price (IOC)' },
			],
			displayOptions: { show },
		},
		{
			displayName: 'Price',
			name: 'price',
			type: 'string',
			default: '',
			placeholder: 'e.g. 50000.5',
			description: 'Limit price in the quote coin, as a decimal string. Required for LIMIT and LIMIT_MAKER; not used by MARKET.',
			displayOptions: { show: limitTypes },
		},
		{
			displayName: 'Quantity',
			name: 'quantity',
			type: 'string',
			default: '',
			placeholder: 'e.g. 0.01',
			description: 'Order size in the base coin, as a decimal string. Required for LIMIT and LIMIT_MAKER; MARKET orders take Quantity or Amount.',
			displayOptions: { show },
		},
		{
			displayName: 'Amount',
			name: 'amount',
			type: 'string',
			default: '',
			placeholder: 'e.g. 100',
			description: 'Cash to spend in the quote coin, as a decimal string: MARKET orders only, instead of Quantity',
			displayOptions: { show: market },
		},
		{
			displayName: 'Time In Force',
			name: 'timeInForceLimit',
			type: 'options',
			default: 'GTC',
			options: [{ name: 'Good Till Cancelled (GTC)', value: 'GTC' }],
			description: 'Limit and limit maker orders are good till cancelled',
			displayOptions: { show: limitTypes },
		},
		{
			displayName: 'Time In Force (Market)',
			name: 'timeInForceMarket',
			type: 'options',
			default: 'IOC',
			options: [{ name: 'Immediate or Cancel (IOC)', value: 'IOC' }],
			description: 'Market orders are immediate or cancel',
			displayOptions: { show: market },
		},
		{
			displayName: 'Client Order ID',
			name: 'newClientOrderId',
			type: 'string',
			default: '',
			description:
				'Your ID for the order, up to 255 characters, unique per account. The service refuses an ID it has seen, so a business key here (e.g. a sheet row ID) makes re-running a workflow safe. Leave empty to let the node generate one per execution.',
			displayOptions: { show },
		},
		{
			displayName: 'Self-Trade Prevention',
			name: 'stpMode',
			type: 'options',
			default: DEFAULT_STP_MODE,
			options: [
				{ name: 'Expire Taker', value: 'EXPIRE_TAKER', description: 'Cancel the incoming order (service default)' },
				{ name: 'Expire Maker', value: 'EXPIRE_MAKER', description: 'Cancel the resting order' },
			],
			description: 'What happens when the order would trade against your own order',
			displayOptions: { show },
		},
	];
}

/**
 * Reads the order fields of one item from the node parameters. Every field is read whatever the
 * type, so a value the type does not take is refused by `validateOrder`, never dropped.
 */
export function readOrderParameters(getParameter: (name: string, fallback: unknown) => unknown): IDataObject {
	const type = getParameter('type', 'LIMIT');
	return {
		symbol: getParameter('symbol', '') as string,
		side: getParameter('side', '') as string,
		type: type as string,
		timeInForce: getParameter(type === 'MARKET' ? 'timeInForceMarket' : 'timeInForceLimit', '') as string,
		price: getParameter('price', '') as string,
		quantity: getParameter('quantity', '') as string,
		amount: getParameter('amount', '') as string,
		newClientOrderId: getParameter('newClientOrderId', '') as string,
		stpMode: getParameter('stpMode', DEFAULT_STP_MODE) as string,
	};
}

export const ORDER_FIELD_LABELS: Record<string, string> = {
	symbol: 'Symbol',
	side: 'Side',
	type: 'Type',
	price: 'Price',
	quantity: 'Quantity',
	amount: 'Amount',
	timeInForce: 'Time In Force',
	newClientOrderId: 'Client Order ID',
	stpMode: 'Self-Trade Prevention',
};

export function parameterLabel(field: string): string {
	return ORDER_FIELD_LABELS[field] ?? field;
}
