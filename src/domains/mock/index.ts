/**
 * The `mock` domain: a tiny task manager used to exercise the framework
 * (specs/mock.md). The user has a notification inbox of their own.
 */
import { join } from "node:path";
import type { CowMap, DbState } from "../../env/db-state.ts";
import { Environment } from "../../env/environment.ts";
import { modelResult, t, validate } from "../../env/model.ts";
import { type FunctionDef, param, type ToolDef, ToolError, Toolkit } from "../../env/toolkit.ts";
import { transferToHumanAgents } from "../shared-tools.ts";
import { domainFiles, readDb } from "../files.ts";
import { loadUpstreamTexts } from "../texts/store.ts";
import { withUpstreamToolTexts } from "../texts/tool-wording.ts";
import type { Domain, DomainDefinition, EnvironmentOptions } from "../types.ts";

const MockTask = t.model("Task", {
  task_id: t.str(),
  title: t.str(),
  description: [t.optional(t.str()), null],
  status: t.literal("pending", "completed"),
});
const MockUser = t.model("User", { user_id: t.str(), name: t.str(), tasks: t.list(t.str()) });
const MockDb = t.model("MockDB", { tasks: t.dict(MockTask), users: t.dict(MockUser) }, "forbid");

const Notification = t.model(
  "Notification",
  {
    notification_id: t.str(),
    message: t.str(),
    status: [t.literal("unread", "read"), "unread"],
    task_id: [t.optional(t.str()), null],
  },
  "forbid",
);
const MockUserDb = t.model(
  "MockUserDB",
  { notifications: [t.dict(Notification), () => new Map()] },
  "forbid",
);

interface TaskRecord {
  task_id: string;
  title: string;
  description: string | null;
  status: string;
}
interface UserRecord {
  user_id: string;
  name: string;
  tasks: string[];
}
interface NotificationRecord {
  notification_id: string;
  message: string;
  status: string;
  task_id: string | null;
}
interface MockRoot {
  tasks: CowMap<TaskRecord>;
  users: CowMap<UserRecord>;
}
interface MockUserRoot {
  notifications: CowMap<NotificationRecord>;
}

const agentDb = (db: DbState<any>) => db.root as MockRoot;
const userDb = (db: DbState<any>) => db.root as MockUserRoot;
const str = { type: "string" };

function createTask(db: DbState<any>, userId: unknown, title: unknown, description: unknown): TaskRecord {
  const { tasks, users } = agentDb(db);
  if (!users.has(userId as string)) throw new ToolError(`User ${userId} not found`);
  const taskId = `task_${tasks.size + 1}`;
  const task = validate<TaskRecord>(MockTask, { task_id: taskId, title, description, status: "pending" });
  tasks.set(taskId, task);
  users.mutate(userId as string).tasks.push(taskId);
  return task;
}

const agentTools: ToolDef[] = [
  {
    name: "create_task",
    kind: "write",
    description: "Create a new task for a user.",
    params: [
      param("user_id", str, "ID of the user the task belongs to"),
      param("title", str, "Short title of the task"),
      param("description", str, "Longer description of the task (optional)", { default: null }),
    ],
    run: ({ db }, a) => modelResult(MockTask, createTask(db, a.user_id, a.title, a.description)),
  },
  {
    name: "get_users",
    kind: "read",
    description: "List every user.",
    params: [],
    run: ({ db }) => modelResult(t.list(MockUser), [...agentDb(db).users.values()]),
  },
  {
    name: "update_task_status",
    kind: "write",
    description: "Change the status of a task.",
    params: [
      param("task_id", str, "ID of the task to change"),
      param("status", { type: "string", enum: ["pending", "completed"] }, "The new status"),
    ],
    run: ({ db }, a) => {
      const { tasks } = agentDb(db);
      const taskId = a.task_id as string;
      if (!tasks.has(taskId)) throw new ToolError(`Task ${taskId} not found`);
      const task = tasks.mutate(taskId);
      task.status = a.status as string;
      return modelResult(MockTask, task);
    },
  },
  transferToHumanAgents,
];

const agentHelpers: FunctionDef[] = [
  {
    name: "assert_number_of_tasks",
    params: [param("user_id", str), param("expected_number", { type: "integer" })],
    run: ({ db }, a) => {
      const user = agentDb(db).users.get(a.user_id as string);
      if (!user) throw new ToolError(`User ${a.user_id} not found`);
      return user.tasks.length === Number(a.expected_number);
    },
  },
  {
    name: "assert_task_status",
    params: [param("task_id", str), param("expected_status", str)],
    run: ({ db }, a) => {
      const task = agentDb(db).tasks.get(a.task_id as string);
      if (!task) throw new ToolError(`Task ${a.task_id} not found`);
      return task.status === a.expected_status;
    },
  },
];

const userTools: ToolDef[] = [
  {
    name: "check_notifications",
    kind: "read",
    description: "Show every notification in the user's inbox.",
    params: [],
    run: ({ db }) => modelResult(t.list(Notification), [...userDb(db).notifications.values()]),
  },
  {
    name: "dismiss_notification",
    kind: "write",
    description: "Mark a notification as read.",
    params: [param("notification_id", str, "ID of the notification to dismiss")],
    run: ({ db }, a) => {
      const { notifications } = userDb(db);
      const id = a.notification_id as string;
      if (!notifications.has(id)) throw new ToolError(`Notification ${id} not found`);
      notifications.mutate(id).status = "read";
      return `Notification ${id} dismissed`;
    },
  },
];

const userHelpers: FunctionDef[] = [
  {
    name: "add_notification",
    params: [
      param("notification_id", str),
      param("message", str),
      param("task_id", str, undefined, { default: null }),
    ],
    run: ({ db }, a) => {
      const notification = validate<NotificationRecord>(Notification, {
        notification_id: a.notification_id,
        message: a.message,
        status: "unread",
        task_id: a.task_id,
      });
      userDb(db).notifications.set(a.notification_id as string, notification);
      return modelResult(Notification, notification);
    },
  },
  {
    name: "assert_notification_status",
    params: [param("notification_id", str), param("expected_status", str)],
    run: ({ db }, a) => {
      const notification = userDb(db).notifications.get(a.notification_id as string);
      if (!notification) throw new ToolError(`Notification ${a.notification_id} not found`);
      return notification.status === a.expected_status;
    },
  },
];

/** Loads the mock domain from `<dataDir>/domains/mock`. */
function load(dataDir: string): Domain {
  const dir = join(dataDir, "domains", "mock");
  const baseDb = readDb<MockRoot>(join(dir, "db.json"), MockDb);
  const baseUserDb = readDb<MockUserRoot>(join(dir, "user_db.json"), MockUserDb);
  const files = domainFiles(dir);
  const policy = (options: EnvironmentOptions = {}) =>
    files.text(options.soloMode ? "policy_solo.md" : "policy.md");
  const texts = loadUpstreamTexts(dataDir);
  const wordedAgentTools = withUpstreamToolTexts(agentTools, texts, "mock");
  const wordedUserTools = withUpstreamToolTexts(userTools, texts, "mock");
  return {
    name: "mock",
    dataFolder: dir,
    supportsSolo: true,
    hasUserTools: true,
    makeEnvironment: (options = {}) =>
      new Environment({
        domainName: "mock",
        policy: policy(options),
        tools: new Toolkit("MockTools", wordedAgentTools, agentHelpers, baseDb.fork()),
        userTools: new Toolkit("MockUserTools", wordedUserTools, userHelpers, baseUserDb.fork()),
        soloMode: options.soloMode ?? false,
      }),
    tasks: files.tasks,
    splits: files.splits,
    policy,
    upstreamTexts: texts,
  };
}

/** Registry entry of the mock domain. */
export const mockDomain: DomainDefinition = {
  name: "mock",
  description: "Minimal task manager used to test the framework (10 tasks, user has an inbox).",
  load,
};
