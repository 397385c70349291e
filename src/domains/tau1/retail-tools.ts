/**
 * The original τ-bench retail tools (specs/tau-bench-v1.md §5), in
 * upstream's `ALL_TOOLS` order. Each body follows upstream's statements in
 * order with Python's semantics (./py.ts), so checks, partial writes and
 * error texts fall where upstream's do; entries are copied into the
 * episode's state (`mutate`) before the first write to them.
 */
import type { PyValue } from "../../core/py-json.ts";
import { pyStr } from "../../core/py-json.ts";
import type { CowMap } from "../../env/db-state.ts";
import type { Tau1Data } from "./data.ts";
import {
  abs,
  add,
  append,
  contains,
  dumps,
  count,
  eq,
  extend,
  getItem,
  gt,
  iterate,
  len,
  lower,
  lt,
  round,
  setItem,
  sorted,
  sub,
  truthy,
  zip,
} from "./py.ts";
import { calculateTool, thinkTool, transferTool } from "./shared-tools.ts";
import { functionInfo, parameter, type Tau1Tool } from "./tool.ts";

const MODULE = "tau_bench.envs.retail.tools";

type Dict = Map<string, PyValue>;

const dict = (value: PyValue) => value as unknown as Dict;

/** `data["users"][user_id]` ready to change in place. */
function mutableUser(data: Tau1Data, userId: PyValue): Dict {
  const users = data.collection("users");
  getItem(users, userId);
  return dict(users.mutate(userId as string));
}

function orderLookup(orders: CowMap<PyValue>, orderId: PyValue): Dict | null {
  return contains(orders, orderId) ? dict(getItem(orders, orderId)) : null;
}

/** The `item_ids.count(x) > all_item_ids.count(x)` check of exchange, modify and return. */
function countCheck(order: Dict, itemIds: PyValue): PyValue | null {
  const allItemIds = iterate(getItem(order, "items")).map((item) => getItem(item, "item_id"));
  for (const itemId of iterate(itemIds)) {
    if (gt(count(itemIds, itemId), count(allItemIds, itemId))) return itemId;
  }
  return null;
}

/** `[item for item in order["items"] if item["item_id"] == item_id][0]`. */
function firstItem(order: Dict, itemId: PyValue): Dict {
  const items = iterate(getItem(order, "items")).filter((item) => eq(getItem(item, "item_id"), itemId));
  return dict(getItem(items, 0));
}

/** The price difference loop shared by exchange and modify; a string is the error to return. */
function priceDifference(
  data: Tau1Data,
  order: Dict,
  itemIds: PyValue,
  newItemIds: PyValue,
): { diff: PyValue } | string {
  const products = data.collection("products");
  let diff: PyValue = 0;
  for (const [itemId, newItemId] of zip(itemIds, newItemIds)) {
    const item = firstItem(order, itemId);
    const productId = getItem(item, "product_id");
    const variants = getItem(getItem(products, productId), "variants");
    if (!(contains(variants, newItemId) && truthy(getItem(getItem(variants, newItemId), "available"))))
      return `Error: new item ${pyStr(newItemId)} not found or available`;
    const oldPrice = getItem(item, "price");
    const newPrice = getItem(getItem(variants, newItemId), "price");
    diff = add(diff, sub(newPrice, oldPrice), "+=");
  }
  return { diff };
}

/**
 * What exchange and modify check first, in upstream's order: the order, its
 * status, the item counts, equal lengths, then each new item (summing the
 * price difference). A string is the error to return.
 */
function checkItemChange(
  data: Tau1Data,
  orderId: PyValue,
  itemIds: PyValue,
  newItemIds: PyValue,
  status: "delivered" | "pending",
  verb: "exchanged" | "modified",
): { order: Dict; diff: PyValue } | string {
  const found = orderLookup(data.collection("orders"), orderId);
  if (!found) return "Error: order not found";
  if (!eq(getItem(found, "status"), status)) return `Error: non-${status} order cannot be ${verb}`;
  const missing = countCheck(found, itemIds);
  if (missing !== null) return `Error: ${pyStr(missing)} not found`;
  if (len(itemIds) !== len(newItemIds)) return "Error: the number of items to be exchanged should match";
  const difference = priceDifference(data, found, itemIds, newItemIds);
  if (typeof difference === "string") return difference;
  return { order: found, diff: difference.diff };
}

function addressArgs(args: Readonly<Record<string, PyValue>>): Dict {
  return new Map<string, PyValue>([
    ["address1", args.address1!],
    ["address2", args.address2!],
    ["city", args.city!],
    ["state", args.state!],
    ["country", args.country!],
    ["zip", args.zip!],
  ]);
}

const ORDER_ID = parameter("string", "The order id, for example '#W0000000' (it starts with '#').");
const ITEM_IDS = (what: string) => parameter("array", what, { items: { type: "string" } });
const PAYMENT_METHOD_ID = parameter(
  "string",
  "The payment method id, for example 'gift_card_0000000' or 'credit_card_0000000'.",
);
const ADDRESS_PROPERTIES = {
  address1: parameter("string", "The first line of the address."),
  address2: parameter("string", "The second line of the address."),
  city: parameter("string", "The city."),
  state: parameter("string", "The state, for example 'NY'."),
  country: parameter("string", "The country, for example 'USA'."),
  zip: parameter("string", "The five-digit zip code."),
};

const cancelPendingOrder: Tau1Tool = {
  name: "cancel_pending_order",
  className: "CancelPendingOrder",
  qualifiedName: `${MODULE}.cancel_pending_order.CancelPendingOrder`,
  params: ["order_id", "reason"],
  info: functionInfo(
    "cancel_pending_order",
    "Cancel a pending order after the user confirmed it explicitly. The payment is refunded: at once to a gift card, otherwise within 5-7 business days. Returns the order afterwards.",
    {
      order_id: ORDER_ID,
      reason: parameter("string", "Why the order is cancelled.", {
        enum: ["no longer needed", "ordered by mistake"],
      }),
    },
  ),
  invoke(data, { order_id: orderId, reason }) {
    const orders = data.collection("orders");
    if (!contains(orders, orderId)) return "Error: order not found";
    let order = dict(getItem(orders, orderId));
    if (!eq(getItem(order, "status"), "pending")) return "Error: non-pending order cannot be cancelled";
    if (!contains(["no longer needed", "ordered by mistake"], reason)) return "Error: invalid reason";
    order = dict(orders.mutate(orderId as string));
    const refunds: PyValue[] = [];
    for (const payment of iterate(getItem(order, "payment_history"))) {
      const paymentId = getItem(payment, "payment_method_id");
      refunds.push(
        new Map<string, PyValue>([
          ["transaction_type", "refund"],
          ["amount", getItem(payment, "amount")],
          ["payment_method_id", paymentId],
        ]),
      );
      if (contains(paymentId, "gift_card")) {
        const user = mutableUser(data, getItem(order, "user_id"));
        const method = dict(getItem(getItem(user, "payment_methods"), paymentId));
        setItem(method, "balance", add(getItem(method, "balance"), getItem(payment, "amount"), "+="));
        setItem(method, "balance", round(getItem(method, "balance"), 2));
      }
    }
    setItem(order, "status", "cancelled");
    setItem(order, "cancel_reason", reason!);
    extend(getItem(order, "payment_history"), refunds);
    return dumps(order);
  },
};

const exchangeDeliveredOrderItems: Tau1Tool = {
  name: "exchange_delivered_order_items",
  className: "ExchangeDeliveredOrderItems",
  qualifiedName: `${MODULE}.exchange_delivered_order_items.ExchangeDeliveredOrderItems`,
  params: ["order_id", "item_ids", "new_item_ids", "payment_method_id"],
  info: functionInfo(
    "exchange_delivered_order_items",
    "Exchange items of a delivered order for other options of the same products, after the user confirmed every item and the payment method. Every exchange of an order must be requested in one call. Returns the order afterwards.",
    {
      order_id: ORDER_ID,
      item_ids: ITEM_IDS("The ids of the items to exchange (an id may repeat)."),
      new_item_ids: ITEM_IDS(
        "The ids of the new items, in the same order as item_ids; each must be an available option of the same product.",
      ),
      payment_method_id: PAYMENT_METHOD_ID,
    },
  ),
  invoke(
    data,
    { order_id: orderId, item_ids: itemIds, new_item_ids: newItemIds, payment_method_id: methodId },
  ) {
    const users = data.collection("users");
    const orders = data.collection("orders");
    const checked = checkItemChange(data, orderId!, itemIds!, newItemIds!, "delivered", "exchanged");
    if (typeof checked === "string") return checked;
    const found = checked.order;
    const diff = round(checked.diff, 2);
    const methods = getItem(getItem(users, getItem(found, "user_id")), "payment_methods");
    if (!contains(methods, methodId)) return "Error: payment method not found";
    const method = getItem(methods, methodId);
    if (eq(getItem(method, "source"), "gift_card") && lt(getItem(method, "balance"), diff))
      return "Error: insufficient gift card balance to pay for the price difference";
    const order = dict(orders.mutate(orderId as string));
    setItem(order, "status", "exchange requested");
    setItem(order, "exchange_items", sorted(itemIds));
    setItem(order, "exchange_new_items", sorted(newItemIds));
    setItem(order, "exchange_payment_method_id", methodId!);
    setItem(order, "exchange_price_difference", diff);
    return dumps(order);
  },
};

const findUserIdByEmail: Tau1Tool = {
  name: "find_user_id_by_email",
  className: "FindUserIdByEmail",
  qualifiedName: `${MODULE}.find_user_id_by_email.FindUserIdByEmail`,
  params: ["email"],
  info: functionInfo("find_user_id_by_email", "Look up a user id by email address. Returns the user id.", {
    email: parameter("string", "The email address, for example 'something@example.com'."),
  }),
  invoke(data, { email }) {
    for (const [userId, profile] of data.collection("users")) {
      if (lower(getItem(profile, "email")) === lower(email)) return userId;
    }
    return "Error: user not found";
  },
};

const findUserIdByNameZip: Tau1Tool = {
  name: "find_user_id_by_name_zip",
  className: "FindUserIdByNameZip",
  qualifiedName: `${MODULE}.find_user_id_by_name_zip.FindUserIdByNameZip`,
  params: ["first_name", "last_name", "zip"],
  info: functionInfo(
    "find_user_id_by_name_zip",
    "Look up a user id by first name, last name and zip code. Use it only when the user cannot be found by email. Returns the user id.",
    {
      first_name: parameter("string", "The first name, for example 'John'."),
      last_name: parameter("string", "The last name, for example 'Doe'."),
      zip: parameter("string", "The zip code, for example '12345'."),
    },
  ),
  invoke(data, { first_name: firstName, last_name: lastName, zip: zipCode }) {
    for (const [userId, profile] of data.collection("users")) {
      const name = getItem(profile, "name");
      if (
        lower(getItem(name, "first_name")) === lower(firstName) &&
        lower(getItem(name, "last_name")) === lower(lastName) &&
        eq(getItem(getItem(profile, "address"), "zip"), zipCode)
      )
        return userId;
    }
    return "Error: user not found";
  },
};

function lookupTool(
  name: string,
  className: string,
  collection: string,
  param: string,
  description: string,
  paramDescription: string,
  missing: string,
): Tau1Tool {
  return {
    name,
    className,
    qualifiedName: `${MODULE}.${name}.${className}`,
    params: [param],
    info: functionInfo(name, description, { [param]: parameter("string", paramDescription) }),
    invoke(data, args) {
      const map = data.collection(collection);
      const key = args[param]!;
      if (contains(map, key)) return dumps(getItem(map, key));
      return missing;
    },
  };
}

const getOrderDetails = lookupTool(
  "get_order_details",
  "GetOrderDetails",
  "orders",
  "order_id",
  "Get the status and details of an order.",
  "The order id, for example '#W0000000' (it starts with '#').",
  "Error: order not found",
);

const getProductDetails = lookupTool(
  "get_product_details",
  "GetProductDetails",
  "products",
  "product_id",
  "Get the inventory details of a product: its options (variants), their availability and prices.",
  "The product id, for example '6086499569'. It is not the same as an item id.",
  "Error: product not found",
);

const getUserDetails = lookupTool(
  "get_user_details",
  "GetUserDetails",
  "users",
  "user_id",
  "Get the details of a user, their orders included.",
  "The user id, for example 'sara_doe_496'.",
  "Error: user not found",
);

const listAllProductTypes: Tau1Tool = {
  name: "list_all_product_types",
  className: "ListAllProductTypes",
  qualifiedName: `${MODULE}.list_all_product_types.ListAllProductTypes`,
  params: [],
  info: {
    type: "function",
    function: {
      name: "list_all_product_types",
      description:
        "List the name and product id of every product type. There are 50 types, each with options of different prices.",
      parameters: { type: "object", properties: {}, required: [] },
    },
  },
  invoke(data) {
    const byName = new Map<string, PyValue>();
    for (const product of data.collection("products").values()) {
      const name = getItem(product, "name");
      if (typeof name !== "string") throw new Error("internal: product name is not a string");
      byName.set(name, getItem(product, "product_id"));
    }
    const names = sorted([...byName.keys()]) as string[];
    return dumps(new Map(names.map((name) => [name, byName.get(name)!])));
  },
};

const modifyPendingOrderAddress: Tau1Tool = {
  name: "modify_pending_order_address",
  className: "ModifyPendingOrderAddress",
  qualifiedName: `${MODULE}.modify_pending_order_address.ModifyPendingOrderAddress`,
  params: ["order_id", "address1", "address2", "city", "state", "country", "zip"],
  info: functionInfo(
    "modify_pending_order_address",
    "Change the shipping address of a pending order, after the user confirmed it explicitly. Returns the order afterwards.",
    { order_id: ORDER_ID, ...ADDRESS_PROPERTIES },
  ),
  invoke(data, args) {
    const orders = data.collection("orders");
    if (!contains(orders, args.order_id)) return "Error: order not found";
    if (!eq(getItem(getItem(orders, args.order_id), "status"), "pending"))
      return "Error: non-pending order cannot be modified";
    const order = dict(orders.mutate(args.order_id as string));
    setItem(order, "address", addressArgs(args));
    return dumps(order);
  },
};

const modifyPendingOrderItems: Tau1Tool = {
  name: "modify_pending_order_items",
  className: "ModifyPendingOrderItems",
  qualifiedName: `${MODULE}.modify_pending_order_items.ModifyPendingOrderItems`,
  params: ["order_id", "item_ids", "new_item_ids", "payment_method_id"],
  info: functionInfo(
    "modify_pending_order_items",
    "Change items of a pending order to other options of the same products, after the user confirmed every item and the payment method. An order can be modified only once, so all changes go in one call. Returns the order afterwards.",
    {
      order_id: ORDER_ID,
      item_ids: ITEM_IDS("The ids of the items to change (an id may repeat)."),
      new_item_ids: ITEM_IDS(
        "The ids of the new items, in the same order as item_ids; each must be an available option of the same product.",
      ),
      payment_method_id: PAYMENT_METHOD_ID,
    },
  ),
  invoke(
    data,
    { order_id: orderId, item_ids: itemIds, new_item_ids: newItemIds, payment_method_id: methodId },
  ) {
    const products = data.collection("products");
    const orders = data.collection("orders");
    const checked = checkItemChange(data, orderId!, itemIds!, newItemIds!, "pending", "modified");
    if (typeof checked === "string") return checked;
    const found = checked.order;
    const diff = checked.diff;
    const userId = getItem(found, "user_id");
    const users = data.collection("users");
    if (!contains(getItem(getItem(users, userId), "payment_methods"), methodId))
      return "Error: payment method not found";
    const source = getItem(getItem(getItem(getItem(users, userId), "payment_methods"), methodId), "source");
    const balance = () =>
      getItem(getItem(getItem(getItem(users, userId), "payment_methods"), methodId), "balance");
    if (eq(source, "gift_card") && lt(balance(), diff))
      return "Error: insufficient gift card balance to pay for the new item";
    const order = dict(orders.mutate(orderId as string));
    append(
      getItem(order, "payment_history"),
      new Map<string, PyValue>([
        ["transaction_type", gt(diff, 0) ? "payment" : "refund"],
        ["amount", abs(diff)],
        ["payment_method_id", methodId!],
      ]),
    );
    if (eq(source, "gift_card")) {
      const method = dict(getItem(getItem(mutableUser(data, userId), "payment_methods"), methodId));
      setItem(method, "balance", sub(getItem(method, "balance"), diff, "-="));
      setItem(method, "balance", round(getItem(method, "balance"), 2));
    }
    for (const [itemId, newItemId] of zip(itemIds, newItemIds)) {
      const item = firstItem(order, itemId);
      setItem(item, "item_id", newItemId);
      const variant = getItem(getItem(getItem(products, getItem(item, "product_id")), "variants"), newItemId);
      setItem(item, "price", getItem(variant, "price"));
      // Upstream stores the variant's own options dict here (shared, never changed in place).
      setItem(item, "options", getItem(variant, "options"));
    }
    setItem(order, "status", "pending (item modified)");
    return dumps(order);
  },
};

const modifyPendingOrderPayment: Tau1Tool = {
  name: "modify_pending_order_payment",
  className: "ModifyPendingOrderPayment",
  qualifiedName: `${MODULE}.modify_pending_order_payment.ModifyPendingOrderPayment`,
  params: ["order_id", "payment_method_id"],
  info: functionInfo(
    "modify_pending_order_payment",
    "Change the payment method of a pending order, after the user confirmed it explicitly. Returns the order afterwards.",
    { order_id: ORDER_ID, payment_method_id: PAYMENT_METHOD_ID },
  ),
  invoke(data, { order_id: orderId, payment_method_id: methodId }) {
    const orders = data.collection("orders");
    const users = data.collection("users");
    if (!contains(orders, orderId)) return "Error: order not found";
    const found = dict(getItem(orders, orderId));
    if (!eq(getItem(found, "status"), "pending")) return "Error: non-pending order cannot be modified";
    const userId = getItem(found, "user_id");
    if (!contains(getItem(getItem(users, userId), "payment_methods"), methodId))
      return "Error: payment method not found";
    const history = getItem(found, "payment_history");
    if (gt(len(history), 1) || !eq(getItem(getItem(history, 0), "transaction_type"), "payment"))
      return "Error: there should be exactly one payment for a pending order";
    if (eq(getItem(getItem(history, 0), "payment_method_id"), methodId))
      return "Error: the new payment method should be different from the current one";
    const amount = getItem(getItem(history, 0), "amount");
    const method = getItem(getItem(getItem(users, userId), "payment_methods"), methodId);
    if (eq(getItem(method, "source"), "gift_card") && lt(getItem(method, "balance"), amount))
      return "Error: insufficient gift card balance to pay for the order";
    const order = dict(orders.mutate(orderId as string));
    const payments = getItem(order, "payment_history");
    const oldMethodId = getItem(getItem(payments, 0), "payment_method_id");
    extend(payments, [
      new Map<string, PyValue>([
        ["transaction_type", "payment"],
        ["amount", amount],
        ["payment_method_id", methodId!],
      ]),
      new Map<string, PyValue>([
        ["transaction_type", "refund"],
        ["amount", amount],
        ["payment_method_id", oldMethodId],
      ]),
    ]);
    if (eq(getItem(method, "source"), "gift_card")) {
      const own = dict(getItem(getItem(mutableUser(data, userId), "payment_methods"), methodId));
      setItem(own, "balance", sub(getItem(own, "balance"), amount, "-="));
      setItem(own, "balance", round(getItem(own, "balance"), 2));
    }
    if (contains(getItem(getItem(payments, 0), "payment_method_id"), "gift_card")) {
      const old = dict(getItem(getItem(mutableUser(data, userId), "payment_methods"), oldMethodId));
      setItem(old, "balance", add(getItem(old, "balance"), amount, "+="));
      setItem(old, "balance", round(getItem(old, "balance"), 2));
    }
    return dumps(order);
  },
};

const modifyUserAddress: Tau1Tool = {
  name: "modify_user_address",
  className: "ModifyUserAddress",
  qualifiedName: `${MODULE}.modify_user_address.ModifyUserAddress`,
  params: ["user_id", "address1", "address2", "city", "state", "country", "zip"],
  info: functionInfo(
    "modify_user_address",
    "Change the default address of a user, after the user confirmed it explicitly. Returns the user afterwards.",
    { user_id: parameter("string", "The user id, for example 'sara_doe_496'."), ...ADDRESS_PROPERTIES },
  ),
  invoke(data, args) {
    const users = data.collection("users");
    if (!contains(users, args.user_id)) return "Error: user not found";
    const user = dict(users.mutate(args.user_id as string));
    setItem(user, "address", addressArgs(args));
    return dumps(user);
  },
};

const returnDeliveredOrderItems: Tau1Tool = {
  name: "return_delivered_order_items",
  className: "ReturnDeliveredOrderItems",
  qualifiedName: `${MODULE}.return_delivered_order_items.ReturnDeliveredOrderItems`,
  params: ["order_id", "item_ids", "payment_method_id"],
  info: functionInfo(
    "return_delivered_order_items",
    "Return items of a delivered order, after the user confirmed the items and the refund method. The refund goes to the original payment method or to an existing gift card. Returns the order afterwards.",
    {
      order_id: ORDER_ID,
      item_ids: ITEM_IDS("The ids of the items to return (an id may repeat)."),
      payment_method_id: parameter(
        "string",
        "The payment method that receives the refund: the original one or a gift card, for example 'gift_card_0000000'.",
      ),
    },
  ),
  invoke(data, { order_id: orderId, item_ids: itemIds, payment_method_id: methodId }) {
    const orders = data.collection("orders");
    if (!contains(orders, orderId)) return "Error: order not found";
    const found = dict(getItem(orders, orderId));
    if (!eq(getItem(found, "status"), "delivered")) return "Error: non-delivered order cannot be returned";
    const users = data.collection("users");
    if (!contains(getItem(getItem(users, getItem(found, "user_id")), "payment_methods"), methodId))
      return "Error: payment method not found";
    if (
      !contains(methodId, "gift_card") &&
      !eq(methodId, getItem(getItem(getItem(found, "payment_history"), 0), "payment_method_id"))
    )
      return "Error: payment method should be either the original payment method or a gift card";
    if (countCheck(found, itemIds!) !== null) return "Error: some item not found";
    const order = dict(orders.mutate(orderId as string));
    setItem(order, "status", "return requested");
    setItem(order, "return_items", sorted(itemIds));
    setItem(order, "return_payment_method_id", methodId!);
    return dumps(order);
  },
};

/** The retail tools in upstream's `ALL_TOOLS` order. */
export const RETAIL_TOOLS: readonly Tau1Tool[] = [
  calculateTool(MODULE),
  cancelPendingOrder,
  exchangeDeliveredOrderItems,
  findUserIdByEmail,
  findUserIdByNameZip,
  getOrderDetails,
  getProductDetails,
  getUserDetails,
  listAllProductTypes,
  modifyPendingOrderAddress,
  modifyPendingOrderItems,
  modifyPendingOrderPayment,
  modifyUserAddress,
  returnDeliveredOrderItems,
  thinkTool(MODULE),
  transferTool(MODULE),
];
