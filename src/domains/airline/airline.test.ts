import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PyFloat, parsePyJson, pyDumps } from "../../core/py-json.ts";
import { replayRecord } from "../../evaluation/replay-record.ts";
import { loadDomain } from "../registry.ts";

const dataDir = process.env.TAU_DATA_DIR;
const goldenDir = dataDir ? join(dataDir, "..", "golden-sample") : "";
const FRESH_HASH = "124e39a664b56402bcd09cb8a6a9cece6acb8462337c969799d5658e3250f263";

type Json = Record<string, any>;

describe.skipIf(!dataDir)("airline domain (skipped: TAU_DATA_DIR not set)", () => {
  const domain = dataDir ? loadDomain("airline", dataDir) : (undefined as never);
  const fresh = () => {
    const env = domain.makeEnvironment();
    const call = (name: string, args: Record<string, unknown>) =>
      env.getResponse({ id: "c1", name, arguments: args, requestor: "assistant" });
    const json = (name: string, args: Record<string, unknown>): any => {
      const message = call(name, args);
      expect(message.error, message.content ?? "").toBe(false);
      return parsePyJson(message.content ?? "", { maps: false });
    };
    return {
      env,
      call,
      json,
      content: (name: string, args: Record<string, unknown>) => call(name, args).content,
    };
  };

  it("hashes the fresh DB like upstream", () => {
    expect(domain.makeEnvironment().getDbHash()).toBe(FRESH_HASH);
    expect(domain.makeEnvironment().getUserDbHash()).toBeNull();
  });

  it("reproduces upstream's replay of the golden sample byte for byte", () => {
    const lines = readFileSync(join(goldenDir, "airline.jsonl"), "utf8").trim().split("\n");
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      const golden = parsePyJson(line) as { id: string };
      const task = domain.tasks().find((t) => t.id === golden.id);
      expect(task, golden.id).toBeDefined();
      expect(pyDumps(replayRecord(domain, task!))).toBe(pyDumps(golden));
    }
  });

  it("replays every task's expected actions without an error (the spec: all 50 succeed)", () => {
    const tasks = domain.tasks();
    expect(tasks).toHaveLength(50);
    let steps = 0;
    let changed = 0;
    for (const task of tasks) {
      const record = replayRecord(domain, task);
      expect(record.initial_agent_db_hash).toBe(FRESH_HASH);
      for (const step of record.steps) {
        expect(step.error, `task ${task.id} ${step.name}: ${step.output}`).toBe(false);
        steps++;
      }
      if (record.final_agent_db_hash !== FRESH_HASH) changed++;
    }
    expect(steps).toBe(142);
    // Tasks with write actions end in a different state (every write in the official actions changes the DB).
    expect(changed).toBe(
      tasks.filter((t) =>
        (t.evaluation_criteria?.actions ?? []).some((a) =>
          domain.makeEnvironment().tools.mutatesState(a.name),
        ),
      ).length,
    );
  });

  it("matches the spec's worked checkpoints (tasks 29 and 33)", () => {
    const { env, json } = fresh();
    const actions = (id: string) => domain.tasks().find((t) => t.id === id)!.evaluation_criteria!.actions!;
    const cancelled = json("cancel_reservation", { reservation_id: "VA5SGQ" });
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.payment_history.at(-1)).toEqual({ payment_id: "credit_card_8003957", amount: -686 });
    const seats = (number: string, date: string): number =>
      env.tools.db.root.flights.get(number).dates.get(date).available_seats.get("economy");
    const seats169 = seats("HAT169", "2024-05-17");
    const seats033 = seats("HAT033", "2024-05-19");
    const booking = actions("29").find((a) => a.name === "book_reservation")!;
    const booked = json("book_reservation", booking.arguments);
    expect(booked.reservation_id).toBe("HATHAT");
    expect(booked.created_at).toBe("2024-05-15T15:00:00");
    expect(booked.status).toBeNull();
    expect(booked.flights.map((f: Json) => f.price)).toEqual([171, 111]);
    expect(seats("HAT169", "2024-05-17")).toBe(seats169 - 1);
    expect(seats("HAT033", "2024-05-19")).toBe(seats033 - 1);
    expect(json("get_user_details", { user_id: "raj_brown_5782" }).reservations.at(-1)).toBe("HATHAT");
    // The fork it came from is untouched.
    expect(domain.makeEnvironment().getDbHash()).toBe(FRESH_HASH);

    const other = fresh();
    const updated = other.json("update_reservation_flights", {
      reservation_id: "HXDUBJ",
      cabin: "economy",
      flights: [
        { flight_number: "HAT072", date: "2024-05-19" },
        { flight_number: "HAT278", date: "2024-05-23" },
      ],
      payment_id: "gift_card_6941833",
    });
    expect(updated.payment_history.at(-1)).toEqual({ payment_id: "gift_card_6941833", amount: -186 });
    const giftCard = () =>
      other
        .content("get_user_details", { user_id: updated.user_id })!
        .match(/"gift_card_6941833": \{[^}]*"amount": ([-\d.e+]+)\}/)?.[1];
    expect(giftCard()).toBe("338.0");
    const bags = other.json("update_reservation_baggages", {
      reservation_id: "HXDUBJ",
      total_baggages: 2,
      nonfree_baggages: 0,
      payment_id: "gift_card_6941833",
    });
    expect(bags.payment_history).toHaveLength(updated.payment_history.length);
    expect(bags.total_baggages).toBe(2);
    expect(giftCard()).toBe("338.0");
  });

  it("keeps upstream's quirks: double cancellation, certificates, raw baggage values, reservation ids", () => {
    const { env, call, content, json } = fresh();
    json("cancel_reservation", { reservation_id: "NO6JO3" });
    const twice = json("cancel_reservation", { reservation_id: "NO6JO3" });
    expect(twice.payment_history.map((p: Json) => p.amount)).toEqual([2504, -2504, -2504, 2504]);

    expect(content("send_certificate", { user_id: "mia_li_3668", amount: 150 })).toBe(
      "Certificate certificate_3221322 added to user mia_li_3668 with amount 150.",
    );
    expect(content("send_certificate", { user_id: "mia_li_3668", amount: new PyFloat(150) })).toBe(
      "Certificate certificate_3221323 added to user mia_li_3668 with amount 150.0.",
    );
    expect(content("get_user_details", { user_id: "mia_li_3668" })).toContain(
      '"certificate_3221322": {"source": "certificate", "id": "certificate_3221322", "amount": 150.0}',
    );
    content("send_certificate", { user_id: "mia_li_3668", amount: 1 });
    expect(content("send_certificate", { user_id: "mia_li_3668", amount: 1 })).toBe(
      "Error: Too many certificates",
    );

    const bags = content("update_reservation_baggages", {
      reservation_id: "NO6JO3",
      total_baggages: new PyFloat(3),
      nonfree_baggages: new PyFloat(1),
      payment_id: "credit_card_4421486",
    })!;
    expect(bags).toContain('"total_baggages": 3.0, "nonfree_baggages": 1.0');
    expect(bags).toContain('{"payment_id": "credit_card_4421486", "amount": 50}]');
    const hashAfterFloat = env.getDbHash();
    expect(hashAfterFloat).not.toBe(FRESH_HASH);

    // Certificates cannot pay for updates, even when nothing is owed.
    expect(
      content("update_reservation_baggages", {
        reservation_id: "NO6JO3",
        total_baggages: 3,
        nonfree_baggages: 1,
        payment_id: "certificate_4856383",
      }),
    ).toBe("Error: Certificate cannot be used to update reservation");
    expect(env.getDbHash()).toBe(hashAfterFloat);

    const booking = {
      user_id: "mia_li_3668",
      origin: "JFK",
      destination: "SEA",
      flight_type: "one_way",
      cabin: "business",
      flights: [{ flight_number: "HAT069", date: "2024-05-20" }],
      passengers: [{ first_name: "Mia", last_name: "Li", dob: "1990-04-05" }],
      total_baggages: 0,
      nonfree_baggages: 0,
      insurance: "no",
    };
    const price = json("search_direct_flight", {
      origin: "JFK",
      destination: "SEA",
      date: "2024-05-20",
    }).find((f: Json) => f.flight_number === "HAT069").prices.business;
    const pay = [{ payment_id: "credit_card_4421486", amount: price }];
    const ids = [0, 1, 2].map(
      () => json("book_reservation", { ...booking, payment_methods: pay }).reservation_id,
    );
    expect(ids).toEqual(["HATHAT", "HATHAU", "HATHAV"]);
    const businessSeats = (e: typeof env) =>
      e.tools.db.root.flights.get("HAT069").dates.get("2024-05-20").available_seats.get("business");
    expect(businessSeats(env)).toBe(businessSeats(domain.makeEnvironment()) - 3);
    expect(env.getDbHash()).toBe(env.tools.db.hashFull());
    expect(call("book_reservation", { ...booking, payment_methods: pay }).content).toBe(
      "Error: Too many reservations",
    );
    const wrong = fresh().content("book_reservation", {
      ...booking,
      insurance: "yes",
      nonfree_baggages: new PyFloat(1),
      payment_methods: [{ payment_id: "credit_card_4421486", amount: new PyFloat(price) }],
    });
    expect(wrong).toBe(
      `Error: Payment amount does not add up, total price is ${price + 80}.0, but paid ${price}`,
    );
  });

  it("searches one-stop connections with next-day second legs", () => {
    const { json } = fresh();
    const pairs = json("search_onestop_flight", { origin: "LGA", destination: "SEA", date: "2024-05-19" });
    expect(pairs.length).toBeGreaterThan(0);
    for (const [first, second] of pairs) {
      expect(first.date).toBe("2024-05-19");
      expect(first.destination).toBe(second.origin);
      expect(second.destination).toBe("SEA");
      const nextDay = first.scheduled_arrival_time_est.includes("+1");
      expect(second.date).toBe(nextDay ? "2024-05-20" : "2024-05-19");
      if (!nextDay)
        expect(second.scheduled_departure_time_est >= first.scheduled_arrival_time_est).toBe(true);
    }
    expect(pairs.some((pair: Json[]) => pair[0]?.flight_number === "HAT002")).toBe(true);
    expect(json("list_all_airports", {})).toHaveLength(20);
    expect(fresh().content("get_flight_status", { flight_number: "HAT018", date: "2024-05-11" })).toBe(
      "delayed",
    );
  });

  it("answers bad model input with an Error tool message, never an exception", () => {
    const { call, content } = fresh();
    expect(content("book_flight", {})).toBe("Error: Tool 'book_flight' not found.");
    expect(content("get_user_details", {})).toBe(
      "Error: AirlineTools.get_user_details() missing 1 required positional argument: 'user_id'",
    );
    expect(content("get_user_details", { user_id: "x", extra: 1 })).toBe(
      "Error: AirlineTools.get_user_details() got an unexpected keyword argument 'extra'",
    );
    expect(content("get_user_details", { user_id: "nobody_1" })).toBe("Error: User nobody_1 not found");
    expect(content("get_reservation_details", { reservation_id: 12 })).toBe(
      "Error: Reservation 12 not found",
    );
    expect(content("get_reservation_details", { reservation_id: ["A"] })).toBe(
      "Error: unhashable type: 'list'",
    );
    expect(content("get_flight_status", { flight_number: "HAT001", date: "2024-06-01" })).toBe(
      "Error: Flight HAT001 not found on date 2024-06-01",
    );
    expect(
      content("update_reservation_passengers", {
        reservation_id: "NO6JO3",
        passengers: [{ first_name: "A", last_name: "B" }],
      }),
    ).toBe(
      "Error: 1 validation error for Passenger\ndob\n  Field required [type=missing, " +
        "input_value={'first_name': 'A', 'last_name': 'B'}, input_type=dict]\n" +
        "    For further information visit https://errors.pydantic.dev/2.12/v/missing",
    );
    expect(
      content("update_reservation_flights", {
        reservation_id: "NO6JO3",
        cabin: "first",
        flights: [{ flight_number: "HAT069", date: "2024-05-20" }],
        payment_id: "credit_card_4421486",
      }),
    ).toBe("Error: 'first'");
    expect(content("calculate", { expression: "2 * (3 + 4)" })).toBe("14.0");
    expect(content("calculate", { expression: "1/0" })).toBe("Error: division by zero");

    // Every tool, every parameter, a spread of wrong types: only Error messages come back.
    const garbage: unknown[] = [null, 7, new PyFloat(2), -1.5, true, "", "zz", [], [1, "a"], {}, { a: 1 }];
    const env = domain.makeEnvironment();
    for (const tool of env.tools.tools) {
      const valid = Object.fromEntries(tool.params.map((p) => [p.name, "x"]));
      for (const p of tool.params) {
        for (const value of garbage) {
          const message = env.getResponse({
            id: "c",
            name: tool.name,
            arguments: { ...valid, [p.name]: value },
            requestor: "assistant",
          });
          expect(typeof message.content).toBe("string");
        }
      }
    }
    expect(call("get_user_details", { user_id: "mia_li_3668" }).error).toBe(false);
  });

  it("offers upstream's tool list, kinds and parameter schemas", () => {
    const env = domain.makeEnvironment();
    expect(env.tools.tools.map((t) => `${t.name}:${t.kind}`)).toEqual([
      "book_reservation:write",
      "calculate:generic",
      "cancel_reservation:write",
      "get_reservation_details:read",
      "get_user_details:read",
      "list_all_airports:read",
      "search_direct_flight:read",
      "search_onestop_flight:read",
      "send_certificate:write",
      "transfer_to_human_agents:generic",
      "update_reservation_baggages:write",
      "update_reservation_flights:write",
      "update_reservation_passengers:write",
      "get_flight_status:read",
    ]);
    const book = env.getToolSchemas()[0]!.function.parameters as Json;
    expect(Object.keys(book)).toEqual(["$defs", "properties", "required", "title", "type"]);
    expect(Object.keys(book.$defs)).toEqual(["FlightInfo", "Passenger", "Payment"]);
    expect(book.$defs.Payment.properties.amount.type).toBe("integer");
    expect(book.properties.flights.items.anyOf).toEqual([
      { $ref: "#/$defs/FlightInfo" },
      { additionalProperties: true, type: "object" },
    ]);
    expect(book.properties.cabin.enum).toEqual(["business", "economy", "basic_economy"]);
    expect(book.required).toHaveLength(11);
    const airports = env.getToolSchemas()[5]!.function.parameters;
    expect(airports).toEqual({ properties: {}, title: "parameters", type: "object" });
  });

  it("refuses solo mode and reads the policy", () => {
    expect(() => domain.makeEnvironment({ soloMode: true })).toThrow(
      "Airline domain does not support solo mode",
    );
    expect(domain.policy()).toContain("2024-05-15 15:00:00 EST");
    expect(domain.splits()?.base).toHaveLength(50);
  });
});
