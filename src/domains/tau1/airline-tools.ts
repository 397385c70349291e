/**
 * The original τ-bench airline tools (specs/tau-bench-v1.md §6), in
 * upstream's `ALL_TOOLS` order, following upstream's statements with
 * Python's semantics (./py.ts) — its bugs included: the one-stop search shows
 * the first leg's day for the second leg, flight changes never update the
 * cabin, no tool touches seat counts, a fourth certificate returns `None`.
 */
import { type PyValue, pyStr } from "../../core/py-json.ts";
import { AIRPORTS } from "../airline/tools.ts";
import type { Tau1Data } from "./data.ts";
import {
  add,
  append,
  contains,
  dumps,
  deepcopy,
  eq,
  extend,
  getItem,
  gt,
  iterate,
  len,
  lt,
  max2,
  mul,
  neg,
  setItem,
  sliceFrom,
  sub,
  sum,
  toInt,
} from "./py.ts";
import { calculateTool, thinkTool, transferTool } from "./shared-tools.ts";
import { functionInfo, parameter, type Tau1Tool } from "./tool.ts";

const MODULE = "tau_bench.envs.airline.tools";

type Dict = Map<string, PyValue>;
const dict = (value: PyValue) => value as unknown as Dict;
const str = (value: PyValue) => pyStr(value);

const RESERVATION_ID = parameter("string", "The reservation id, for example '8JX2WO'.");
const USER_ID = parameter("string", "The user id, for example 'sara_doe_496'.");
const CABIN = parameter("string", "The cabin class.", { enum: ["basic_economy", "economy", "business"] });
const FLIGHTS = (what: string) =>
  parameter("array", what, {
    items: {
      type: "object",
      properties: {
        flight_number: parameter("string", "The flight number, for example 'HAT001'."),
        date: parameter(
          "string",
          "The date of the flight, in the format 'YYYY-MM-DD', for example '2024-05-01'.",
        ),
      },
      required: ["flight_number", "date"],
    },
  });
const PASSENGERS = (what: string) =>
  parameter("array", what, {
    items: {
      type: "object",
      properties: {
        first_name: parameter("string", "The first name of the passenger, for example 'James'."),
        last_name: parameter("string", "The last name of the passenger, for example 'Brown'."),
        dob: parameter("string", "The date of birth, in the format 'YYYY-MM-DD', for example '1990-01-01'."),
      },
      required: ["first_name", "last_name", "dob"],
    },
  });

/**
 * The per-segment checks of booking and of changing flights; returns the
 * error text, or null after adding `price`, `origin`, `destination` to the segment.
 */
function priceSegment(
  data: Tau1Data,
  flight: PyValue,
  cabin: PyValue,
  passengerCount: () => number,
): string | null {
  const flights = data.collection("flights");
  const flightNumber = getItem(flight, "flight_number");
  if (!contains(flights, flightNumber)) return `Error: flight ${str(flightNumber)} not found`;
  const flightData = getItem(flights, flightNumber);
  if (!contains(getItem(flightData, "dates"), getItem(flight, "date")))
    return `Error: flight ${str(flightNumber)} not found on date ${str(getItem(flight, "date"))}`;
  const dateData = getItem(getItem(flightData, "dates"), getItem(flight, "date"));
  if (!eq(getItem(dateData, "status"), "available"))
    return `Error: flight ${str(flightNumber)} not available on date ${str(getItem(flight, "date"))}`;
  if (lt(getItem(getItem(dateData, "available_seats"), cabin), passengerCount()))
    return `Error: not enough seats on flight ${str(flightNumber)}`;
  setItem(flight, "price", getItem(getItem(dateData, "prices"), cabin));
  setItem(flight, "origin", getItem(flightData, "origin"));
  setItem(flight, "destination", getItem(flightData, "destination"));
  return null;
}

const bookReservation: Tau1Tool = {
  name: "book_reservation",
  className: "BookReservation",
  qualifiedName: `${MODULE}.book_reservation.BookReservation`,
  params: [
    "user_id",
    "origin",
    "destination",
    "flight_type",
    "cabin",
    "flights",
    "passengers",
    "payment_methods",
    "total_baggages",
    "nonfree_baggages",
    "insurance",
  ],
  info: functionInfo("book_reservation", "Book a reservation.", {
    user_id: USER_ID,
    origin: parameter("string", "The IATA code of the origin city, for example 'SFO'."),
    destination: parameter("string", "The IATA code of the destination city, for example 'JFK'."),
    flight_type: parameter("string", "One way or round trip.", { enum: ["one_way", "round_trip"] }),
    cabin: CABIN,
    flights: FLIGHTS("Every flight segment of the reservation."),
    passengers: PASSENGERS("The passengers."),
    payment_methods: parameter("array", "How the reservation is paid, and how much by each method.", {
      items: {
        type: "object",
        properties: {
          payment_id: parameter("string", "The payment method id, for example 'credit_card_7815826'."),
          amount: parameter("number", "The amount paid with this method."),
        },
        required: ["payment_id", "amount"],
      },
    }),
    total_baggages: parameter("integer", "The number of bags in the reservation."),
    nonfree_baggages: parameter("integer", "The number of bags that are paid for."),
    insurance: parameter("string", "Whether travel insurance is bought.", { enum: ["yes", "no"] }),
  }),
  invoke(data, args) {
    const reservations = data.collection("reservations");
    const users = data.collection("users");
    const userId = args.user_id!;
    if (!contains(users, userId)) return "Error: user not found";
    let reservationId = "HATHAT";
    if (contains(reservations, reservationId)) {
      reservationId = "HATHAU";
      if (contains(reservations, reservationId)) reservationId = "HATHAV";
    }
    const passengers = args.passengers!;
    const paymentMethods = args.payment_methods!;
    const segments = deepcopy(args.flights!);
    // Upstream keeps the given passengers and payment lists themselves in the new reservation.
    const reservation: Dict = new Map<string, PyValue>([
      ["reservation_id", reservationId],
      ["user_id", userId],
      ["origin", args.origin!],
      ["destination", args.destination!],
      ["flight_type", args.flight_type!],
      ["cabin", args.cabin!],
      ["flights", segments],
      ["passengers", passengers],
      ["payment_history", paymentMethods],
      ["created_at", "2024-05-15T15:00:00"],
      ["total_baggages", args.total_baggages!],
      ["nonfree_baggages", args.nonfree_baggages!],
      ["insurance", args.insurance!],
    ]);
    let totalPrice: PyValue = 0;
    for (const flight of iterate(getItem(reservation, "flights"))) {
      const error = priceSegment(data, flight, args.cabin!, () => len(passengers));
      if (error !== null) return error;
      totalPrice = add(totalPrice, mul(getItem(flight, "price"), len(passengers)), "+=");
    }
    if (eq(args.insurance, "yes")) totalPrice = add(totalPrice, mul(30, len(passengers)), "+=");
    totalPrice = add(totalPrice, mul(50, args.nonfree_baggages), "+=");
    const user = getItem(users, userId);
    for (const payment of iterate(paymentMethods)) {
      const paymentId = getItem(payment, "payment_id");
      const amount = getItem(payment, "amount");
      if (!contains(getItem(user, "payment_methods"), paymentId))
        return `Error: payment method ${str(paymentId)} not found`;
      const method = getItem(getItem(user, "payment_methods"), paymentId);
      if (contains(["gift_card", "certificate"], getItem(method, "source"))) {
        if (lt(getItem(method, "amount"), amount))
          return `Error: not enough balance in payment method ${str(paymentId)}`;
      }
    }
    const paid = () => sum(iterate(paymentMethods).map((payment) => getItem(payment, "amount")));
    if (!eq(paid(), totalPrice))
      return `Error: payment amount does not add up, total price is ${str(totalPrice)}, but paid ${str(paid())}`;
    const own = dict(users.mutate(userId as string));
    for (const payment of iterate(paymentMethods)) {
      const paymentId = getItem(payment, "payment_id");
      const amount = getItem(payment, "amount");
      const methods = getItem(own, "payment_methods");
      const source = getItem(getItem(methods, paymentId), "source");
      if (eq(source, "gift_card")) {
        const method = dict(getItem(methods, paymentId));
        setItem(method, "amount", sub(getItem(method, "amount"), amount, "-="));
      } else if (eq(source, "certificate")) {
        dict(methods).delete(paymentId as string);
      }
    }
    reservations.set(reservationId, reservation);
    append(getItem(own, "reservations"), reservationId);
    return dumps(reservation);
  },
};

const cancelReservation: Tau1Tool = {
  name: "cancel_reservation",
  className: "CancelReservation",
  qualifiedName: `${MODULE}.cancel_reservation.CancelReservation`,
  params: ["reservation_id"],
  info: functionInfo("cancel_reservation", "Cancel the whole reservation.", {
    reservation_id: RESERVATION_ID,
  }),
  invoke(data, { reservation_id: reservationId }) {
    const reservations = data.collection("reservations");
    if (!contains(reservations, reservationId)) return "Error: reservation not found";
    const reservation = dict(reservations.mutate(reservationId as string));
    const refunds: PyValue[] = [];
    for (const payment of iterate(getItem(reservation, "payment_history"))) {
      refunds.push(
        new Map<string, PyValue>([
          ["payment_id", getItem(payment, "payment_id")],
          ["amount", neg(getItem(payment, "amount"))],
        ]),
      );
    }
    extend(getItem(reservation, "payment_history"), refunds);
    setItem(reservation, "status", "cancelled");
    return dumps(reservation);
  },
};

const getReservationDetails: Tau1Tool = {
  name: "get_reservation_details",
  className: "GetReservationDetails",
  qualifiedName: `${MODULE}.get_reservation_details.GetReservationDetails`,
  params: ["reservation_id"],
  info: functionInfo("get_reservation_details", "Get the details of a reservation.", {
    reservation_id: RESERVATION_ID,
  }),
  invoke(data, { reservation_id: reservationId }) {
    const reservations = data.collection("reservations");
    if (contains(reservations, reservationId)) return dumps(getItem(reservations, reservationId));
    return "Error: user not found";
  },
};

const getUserDetails: Tau1Tool = {
  name: "get_user_details",
  className: "GetUserDetails",
  qualifiedName: `${MODULE}.get_user_details.GetUserDetails`,
  params: ["user_id"],
  info: functionInfo("get_user_details", "Get the details of a user, their reservations included.", {
    user_id: USER_ID,
  }),
  invoke(data, { user_id: userId }) {
    const users = data.collection("users");
    if (contains(users, userId)) return dumps(getItem(users, userId));
    return "Error: user not found";
  },
};

const listAllAirports: Tau1Tool = {
  name: "list_all_airports",
  className: "ListAllAirports",
  qualifiedName: `${MODULE}.list_all_airports.ListAllAirports`,
  params: [],
  info: {
    type: "function",
    function: {
      name: "list_all_airports",
      description: "List every airport and its city.",
      parameters: { type: "object", properties: {}, required: [] },
    },
  },
  invoke: () => dumps(new Map(AIRPORTS)),
};

/** A flight's keys except `dates`, then the given date entry's keys. */
function flightView(flight: PyValue, dateEntry: PyValue): Dict {
  const out: Dict = new Map();
  for (const [key, value] of dict(flight)) if (key !== "dates") out.set(key, value);
  for (const [key, value] of dict(dateEntry)) out.set(key, value);
  return out;
}

const SEARCH_PROPERTIES = {
  origin: parameter("string", "The IATA code of the origin city, for example 'JFK'."),
  destination: parameter("string", "The IATA code of the destination city, for example 'LAX'."),
  date: parameter("string", "The date of the flight, in the format 'YYYY-MM-DD', for example '2024-01-01'."),
};

const searchDirectFlight: Tau1Tool = {
  name: "search_direct_flight",
  className: "SearchDirectFlight",
  qualifiedName: `${MODULE}.search_direct_flight.SearchDirectFlight`,
  params: ["origin", "destination", "date"],
  info: functionInfo(
    "search_direct_flight",
    "Search direct flights between two cities on a date.",
    SEARCH_PROPERTIES,
  ),
  invoke(data, { origin, destination, date }) {
    const results: PyValue[] = [];
    for (const flight of data.collection("flights").values()) {
      if (eq(getItem(flight, "origin"), origin) && eq(getItem(flight, "destination"), destination)) {
        const dates = getItem(flight, "dates");
        if (contains(dates, date) && eq(getItem(getItem(dates, date), "status"), "available"))
          results.push(flightView(flight, getItem(dates, date)));
      }
    }
    return dumps(results);
  },
};

const searchOnestopFlight: Tau1Tool = {
  name: "search_onestop_flight",
  className: "SearchOnestopFlight",
  qualifiedName: `${MODULE}.search_onestop_flight.SearchOnestopFlight`,
  params: ["origin", "destination", "date"],
  info: functionInfo(
    "search_onestop_flight",
    "Search flights with one stop between two cities on a date.",
    SEARCH_PROPERTIES,
  ),
  invoke(data, { origin, destination, date }) {
    const flights = [...data.collection("flights").values()];
    const results: PyValue[] = [];
    for (const flight1 of flights) {
      if (!eq(getItem(flight1, "origin"), origin)) continue;
      for (const flight2 of flights) {
        if (
          !(
            eq(getItem(flight2, "destination"), destination) &&
            eq(getItem(flight1, "destination"), getItem(flight2, "origin"))
          )
        )
          continue;
        const arrival = getItem(flight1, "scheduled_arrival_time_est");
        const date2 = contains(arrival, "+1") ? `2024-05-${str(add(toInt(sliceFrom(date, -2)), 1))}` : date!;
        if (gt(arrival, getItem(flight2, "scheduled_departure_time_est"))) continue;
        const dates1 = getItem(flight1, "dates");
        const dates2 = getItem(flight2, "dates");
        if (contains(dates1, date) && contains(dates2, date2)) {
          if (
            eq(getItem(getItem(dates1, date), "status"), "available") &&
            eq(getItem(getItem(dates2, date2), "status"), "available")
          ) {
            const result1 = flightView(flight1, getItem(dates1, date));
            setItem(result1, "date", date!);
            // Upstream's bug: the second leg shows the first leg's day.
            const result2 = flightView(flight2, getItem(dates2, date));
            setItem(result2, "date", date2);
            results.push([result1, result2]);
          }
        }
      }
    }
    return dumps(results);
  },
};

const sendCertificate: Tau1Tool = {
  name: "send_certificate",
  className: "SendCertificate",
  qualifiedName: `${MODULE}.send_certificate.SendCertificate`,
  params: ["user_id", "amount"],
  info: functionInfo("send_certificate", "Send a certificate to a user. Be careful!", {
    user_id: USER_ID,
    amount: parameter("number", "The certificate amount."),
  }),
  invoke(data, { user_id: userId, amount }) {
    const users = data.collection("users");
    if (!contains(users, userId)) return "Error: user not found";
    for (const id of [3221322, 3221323, 3221324]) {
      const paymentId = `certificate_${id}`;
      if (!contains(getItem(getItem(users, userId), "payment_methods"), paymentId)) {
        const methods = getItem(dict(users.mutate(userId as string)), "payment_methods");
        setItem(
          methods,
          paymentId,
          new Map<string, PyValue>([
            ["source", "certificate"],
            ["amount", amount!],
            ["id", paymentId],
          ]),
        );
        return `Certificate ${paymentId} added to user ${str(userId!)} with amount ${str(amount!)}.`;
      }
    }
    return null;
  },
};

/** The payment checks shared by the baggage and flight updates; a string is the error to return. */
function checkUpdatePayment(
  data: Tau1Data,
  reservation: PyValue,
  paymentId: PyValue,
  price: PyValue,
): string | null {
  const methods = getItem(
    getItem(data.collection("users"), getItem(reservation, "user_id")),
    "payment_methods",
  );
  if (!contains(methods, paymentId)) return "Error: payment method not found";
  const method = getItem(methods, paymentId);
  if (eq(getItem(method, "source"), "certificate"))
    return "Error: certificate cannot be used to update reservation";
  if (eq(getItem(method, "source"), "gift_card") && lt(getItem(method, "amount"), price))
    return "Error: gift card balance is not enough";
  return null;
}

/** Charges a gift card (`amount -= price`) when the payment method is one. */
function chargeGiftCard(data: Tau1Data, reservation: PyValue, paymentId: PyValue, price: PyValue): void {
  const users = data.collection("users");
  const userId = getItem(reservation, "user_id");
  if (
    !eq(
      getItem(getItem(getItem(getItem(users, userId), "payment_methods"), paymentId), "source"),
      "gift_card",
    )
  )
    return;
  const method = getItem(getItem(dict(users.mutate(userId as string)), "payment_methods"), paymentId);
  setItem(method, "amount", sub(getItem(method, "amount"), price, "-="));
}

/** `if total_price != 0: reservation["payment_history"].append({"payment_id": id, "amount": total_price})`. */
function appendPayment(reservation: Dict, paymentId: PyValue, amount: PyValue): void {
  if (eq(amount, 0)) return;
  append(
    getItem(reservation, "payment_history"),
    new Map<string, PyValue>([
      ["payment_id", paymentId],
      ["amount", amount],
    ]),
  );
}

const updateReservationBaggages: Tau1Tool = {
  name: "update_reservation_baggages",
  className: "UpdateReservationBaggages",
  qualifiedName: `${MODULE}.update_reservation_baggages.UpdateReservationBaggages`,
  params: ["reservation_id", "total_baggages", "nonfree_baggages", "payment_id"],
  info: functionInfo("update_reservation_baggages", "Change the baggage information of a reservation.", {
    reservation_id: RESERVATION_ID,
    total_baggages: parameter("integer", "The new total number of bags."),
    nonfree_baggages: parameter("integer", "The new number of paid bags."),
    payment_id: parameter(
      "string",
      "The payment method id in the user's profile, for example 'credit_card_7815826' or 'gift_card_7815826'.",
    ),
  }),
  invoke(
    data,
    {
      reservation_id: reservationId,
      total_baggages: total,
      nonfree_baggages: nonfree,
      payment_id: paymentId,
    },
  ) {
    const reservations = data.collection("reservations");
    if (!contains(reservations, reservationId)) return "Error: reservation not found";
    const found = getItem(reservations, reservationId);
    const price = mul(50, max2(0, sub(nonfree, getItem(found, "nonfree_baggages"))));
    const error = checkUpdatePayment(data, found, paymentId!, price);
    if (error !== null) return error;
    const reservation = dict(reservations.mutate(reservationId as string));
    setItem(reservation, "total_baggages", total!);
    setItem(reservation, "nonfree_baggages", nonfree!);
    chargeGiftCard(data, reservation, paymentId!, price);
    appendPayment(reservation, paymentId!, price);
    return dumps(reservation);
  },
};

const updateReservationFlights: Tau1Tool = {
  name: "update_reservation_flights",
  className: "UpdateReservationFlights",
  qualifiedName: `${MODULE}.update_reservation_flights.UpdateReservationFlights`,
  params: ["reservation_id", "cabin", "flights", "payment_id"],
  info: functionInfo("update_reservation_flights", "Change the flights of a reservation.", {
    reservation_id: RESERVATION_ID,
    cabin: CABIN,
    flights: FLIGHTS(
      "Every flight segment of the reservation after the change, unchanged segments included.",
    ),
    payment_id: parameter(
      "string",
      "The payment method id in the user's profile, for example 'credit_card_7815826' or 'gift_card_7815826'.",
    ),
  }),
  invoke(data, { reservation_id: reservationId, cabin, flights, payment_id: paymentId }) {
    const reservations = data.collection("reservations");
    if (!contains(reservations, reservationId)) return "Error: reservation not found";
    const found = getItem(reservations, reservationId);
    let totalPrice: PyValue = 0;
    const segments = deepcopy(flights!);
    const passengerCount = () => len(getItem(found, "passengers"));
    for (const flight of iterate(segments)) {
      const same = iterate(getItem(found, "flights")).filter(
        (existing) =>
          eq(getItem(existing, "flight_number"), getItem(flight, "flight_number")) &&
          eq(getItem(existing, "date"), getItem(flight, "date")) &&
          eq(cabin, getItem(found, "cabin")),
      );
      if (same.length > 0) {
        const existing = same[0]!;
        totalPrice = add(totalPrice, mul(getItem(existing, "price"), passengerCount()), "+=");
        setItem(flight, "price", getItem(existing, "price"));
        setItem(flight, "origin", getItem(existing, "origin"));
        setItem(flight, "destination", getItem(existing, "destination"));
        continue;
      }
      const error = priceSegment(data, flight, cabin!, passengerCount);
      if (error !== null) return error;
      totalPrice = add(totalPrice, mul(getItem(flight, "price"), passengerCount()), "+=");
    }
    totalPrice = sub(
      totalPrice,
      mul(
        sum(iterate(getItem(found, "flights")).map((flight) => getItem(flight, "price"))),
        passengerCount(),
      ),
      "-=",
    );
    const error = checkUpdatePayment(data, found, paymentId!, totalPrice);
    if (error !== null) return error;
    const reservation = dict(reservations.mutate(reservationId as string));
    chargeGiftCard(data, reservation, paymentId!, totalPrice);
    setItem(reservation, "flights", segments);
    appendPayment(reservation, paymentId!, totalPrice);
    return dumps(reservation);
  },
};

const updateReservationPassengers: Tau1Tool = {
  name: "update_reservation_passengers",
  className: "UpdateReservationPassengers",
  qualifiedName: `${MODULE}.update_reservation_passengers.UpdateReservationPassengers`,
  params: ["reservation_id", "passengers"],
  info: functionInfo("update_reservation_passengers", "Change the passengers of a reservation.", {
    reservation_id: RESERVATION_ID,
    passengers: PASSENGERS("The passengers after the change."),
  }),
  invoke(data, { reservation_id: reservationId, passengers }) {
    const reservations = data.collection("reservations");
    if (!contains(reservations, reservationId)) return "Error: reservation not found";
    if (len(passengers) !== len(getItem(getItem(reservations, reservationId), "passengers")))
      return "Error: number of passengers does not match";
    const reservation = dict(reservations.mutate(reservationId as string));
    setItem(reservation, "passengers", passengers!);
    return dumps(reservation);
  },
};

/** The airline tools in upstream's `ALL_TOOLS` order. */
export const AIRLINE_TOOLS: readonly Tau1Tool[] = [
  bookReservation,
  calculateTool(MODULE),
  cancelReservation,
  getReservationDetails,
  getUserDetails,
  listAllAirports,
  searchDirectFlight,
  searchOnestopFlight,
  sendCertificate,
  thinkTool(MODULE),
  transferTool(MODULE),
  updateReservationBaggages,
  updateReservationFlights,
  updateReservationPassengers,
];
