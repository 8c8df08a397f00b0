/** The account endpoints: POST /api/v1/account/assetTransfer and GET /api/v1/account (balances). */
import { CODES } from '../codes';
import {
	ACCOUNT_TYPES,
	DEMO_USER_ID,
	MAX_TRANSFER_CLIENT_ORDER_ID_LENGTH,
	SUB_ACCOUNTS,
	accountsOf,
	tradingAccountOf,
} from '../constants';
import { apiError, fieldError } from '../errors';
import { json, type Resp } from '../response';
import type { Authed, RequestContext, Services } from './route';

/**
 * Moves a coin between two of a master key's accounts; parameters in the query string only. The
 * optional `clientOrderId` (UAE documentation: up to 64 characters) is echoed in the answer and
 * carried by the transfer's history records. The documentation does not say what a reused one
 * does: the sandbox takes the strictest reading, and refuses any ID an earlier transfer was sent
 * with (-1141 Duplicate order, nothing moved).
 */
export function transfer(
	_ctx: RequestContext,
	auth: Authed,
	{ engine, behaviour }: Services,
): Resp {
	if (auth.key.kind !== 'master') {
		throw apiError(CODES.noPermission, 'asset transfers need a master-account API key');
	}
	const p = auth.queryParams;
	const clientOrderId = p.get('clientOrderId');
	if (clientOrderId !== undefined && clientOrderId.length > MAX_TRANSFER_CLIENT_ORDER_ID_LENGTH) {
		throw fieldError('clientOrderId', `at most ${MAX_TRANSFER_CLIENT_ORDER_ID_LENGTH} characters`);
	}
	const r = engine.transfer(
		auth.key,
		{
			fromAccountId: p.get('fromAccountId'),
			toAccountId: p.get('toAccountId'),
			coin: p.get('coin'),
			quantity: p.get('quantity'),
			clientOrderId,
		},
		behaviour.transferReusedIds,
	);
	// The UAE documentation's answer: the transfer id is `orderId`, the time a JSON number, the
	// client order ID as sent ("" when none).
	return json(200, {
		success: true,
		timestamp: Number(r.timestamp),
		clientOrderId: r.clientOrderId,
		orderId: r.id,
	});
}

/**
 * GET /api/v1/account/checkApiKey (weight 1): the key's account type, as the UAE documentation
 * answers it (`{"accountType": "Master Account" | "Sub Account"}`). A signed read that needs no
 * permission, so every valid key passes it.
 */
export function checkApiKey(_ctx: RequestContext, auth: Authed): Resp {
	return json(200, {
		accountType: auth.key.kind === 'master' ? 'Master Account' : 'Sub Account',
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

/** The UAE documentation's account labels by account type; a sub account's trading account has its own. */
const ACCOUNT_LABELS: Record<number, string> = {
	1: 'Main Trading Account',
	3: 'Futures Account',
	5: 'Custody Account',
	6: 'Fiat Account',
};

/**
 * GET /api/v1/account/type (weight 5): the key's accounts, as the UAE documentation answers them:
 * `[{accountId, accountLabel, accountType, accountIndex, userId}]`; a master key's list ends with
 * its sub account's trading account ("Sub Main Trading Account", type 1).
 */
export function accountTypes(_ctx: RequestContext, auth: Authed): Resp {
	return json(
		200,
		accountsOf(auth.key).map((accountId) => ({
			accountId,
			accountLabel: SUB_ACCOUNTS.includes(accountId)
				? 'Sub Main Trading Account'
				: ACCOUNT_LABELS[ACCOUNT_TYPES[accountId]],
			accountType: ACCOUNT_TYPES[accountId],
			accountIndex: 0,
			userId: DEMO_USER_ID,
		})),
	);
}
