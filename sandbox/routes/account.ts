/** The account endpoints: POST /api/v1/account/assetTransfer and GET /api/v1/account (balances). */
import { CODES } from '../codes';
import { DEMO_USER_ID, accountsOf, tradingAccountOf } from '../constants';
import { apiError, fieldError } from '../errors';
import { json, type Resp } from '../response';
import type { Authed, RequestContext, Services } from './route';

/** Moves a coin between two of a master key's accounts; parameters in the query string only. */
export function transfer(_ctx: RequestContext, auth: Authed, { engine }: Services): Resp {
	if (auth.key.kind !== 'master') {
		throw apiError(CODES.noPermission, 'asset transfers need a master-account API key');
	}
	const p = auth.queryParams;
	const r = engine.transfer(auth.key, {
		fromAccountId: p.get('fromAccountId'),
		toAccountId: p.get('toAccountId'),
		coin: p.get('coin'),
		quantity: p.get('quantity'),
	});
	// The family's answer (CCXT comments): the transfer id is `orderId`, the time a JSON number.
	return json(200, {
		success: true,
		timestamp: Number(r.timestamp),
		clientOrderId: '',
		orderId: r.id,
	});
}

/** Balances of the key's trading account, or of `accountId` (one of the key's accounts). */
export function account(_ctx: RequestContext, auth: Authed, { engine }: Services): Resp {
	const accountId = auth.queryParams.get('accountId');
	let acc = tradingAccountOf(auth.key);
	if (accountId !== undefined) {
		if (!/^\d{1,20}$/.test(accountId)) throw fieldError('accountId', 'numeric account id');
		if (!accountsOf(auth.key).includes(accountId))
			throw apiError(CODES.accountNotAllowed, `'${accountId}' is not one of your accounts`);
		acc = accountId;
	}
	return json(200, { balances: engine.balanceLines(acc), userId: DEMO_USER_ID });
}
