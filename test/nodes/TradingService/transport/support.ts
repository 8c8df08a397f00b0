/** Shared by the transport's tests against the sandbox. */
import type { IDataObject } from 'n8n-workflow';

import { ACCOUNT_ENDPOINTS } from '../../../../nodes/TradingService/account/endpoints';
import { FUTURES_ENDPOINTS } from '../../../../nodes/TradingService/futures/endpoints';
import { MARKET_ENDPOINTS } from '../../../../nodes/TradingService/market/endpoints';
import { ORDER_ENDPOINTS } from '../../../../nodes/TradingService/orders/endpoints';
import { STREAM_ENDPOINTS } from '../../../../nodes/TradingService/stream/endpoints';
import { TRANSFER_ENDPOINTS } from '../../../../nodes/TradingService/transfers/endpoints';
import { WALLET_ENDPOINTS } from '../../../../nodes/TradingService/wallet/endpoints';
import { KEY_ACCOUNTS_ENDPOINT, type Endpoint } from '../../../../nodes/TradingService/transport';
import { SERVER_TIME_ENDPOINT } from '../../../../nodes/TradingService/transport/request';
import type { LedgerRequest } from '../../../../sandbox';

/** A room's endpoints, named `<room>.<name>`. */
function inRoom<Room extends string, Endpoints extends Record<string, Endpoint>>(
	room: Room,
	endpoints: Endpoints,
) {
	return Object.fromEntries(
		Object.entries(endpoints).map(([name, endpoint]) => [`${room}.${name}`, endpoint]),
	) as { [Name in keyof Endpoints & string as `${Room}.${Name}`]: Endpoint };
}

/** Every endpoint the rooms declare, spot and futures, by room and name. */
export const DECLARED_ENDPOINTS = {
	...inRoom('orders', ORDER_ENDPOINTS),
	...inRoom('market', MARKET_ENDPOINTS),
	...inRoom('account', ACCOUNT_ENDPOINTS),
	...inRoom('transfers', TRANSFER_ENDPOINTS),
	...inRoom('stream', STREAM_ENDPOINTS),
	...inRoom('futures', FUTURES_ENDPOINTS),
	...inRoom('wallet', WALLET_ENDPOINTS),
	...inRoom('transport', { keyAccounts: KEY_ACCOUNTS_ENDPOINT, serverTime: SERVER_TIME_ENDPOINT }),
};

/** The query of a valid limit order with this client order ID; `overrides` change or add fields. */
export const limitOrderQuery =
	(newClientOrderId: string) =>
	(overrides: IDataObject = {}) => ({
		symbol: 'BTCUSDT',
		side: 'BUY',
		type: 'LIMIT',
		timeInForce: 'GTC',
		stpMode: 'EXPIRE_TAKER',
		quantity: '0.001',
		price: '100',
		newClientOrderId,
		...overrides,
	});

/** Version 2's Create for `count` items, each its own quantity (`0.<tag><nnn>`), price 1. */
export const createOrders = (count: number, tag: string) => ({
	parameters: {
		resource: 'order',
		operation: 'create',
		symbol: 'BTCUSDT',
		side: 'BUY',
		type: 'LIMIT',
		price: '1',
		quantity: '={{ $json.quantity }}',
	},
	inputItems: Array.from({ length: count }, (_, index) => ({
		json: { quantity: `0.${tag}${String(index + 1).padStart(3, '0')}` },
	})),
	node: { typeVersion: 2 },
});

/** The most requests of `requests` that reached the sandbox within any 1000 ms. */
export function busiestSecond(requests: LedgerRequest[]): number {
	const times = requests.map((request) => request.at).sort((a, b) => a - b);
	let most = 0;
	for (let first = 0, last = 0; last < times.length; last++) {
		while (times[last] - times[first] >= 1000) first++;
		most = Math.max(most, last - first + 1);
	}
	return most;
}
