import { create } from "@bufbuild/protobuf";
import { describe, expect, test } from "vitest";
import { A2AServiceRoutes } from "../../../gen/a2a_http.js";
import { ListTasksResponseSchema, TaskSchema, TaskState } from "../../../gen/a2a_pb.js";
import { encodeResponse } from "../../../packages/runtime/src/transcoding/index.js";

const listTasks = A2AServiceRoutes.find((r) => r.rpc === "listTasks")!;
const getTask = A2AServiceRoutes.find((r) => r.rpc === "getTask")!;

describe("encodeResponse with emitRequired", () => {
  test("writes REQUIRED fields that hold their defaults", () => {
    const empty = create(ListTasksResponseSchema, { pageSize: 10 });
    expect(encodeResponse(listTasks, empty)).toEqual({ pageSize: 10 });
    expect(encodeResponse(listTasks, empty, { emitRequired: true })).toEqual({
      tasks: [],
      nextPageToken: "",
      pageSize: 10,
      totalSize: 0,
    });
  });

  test("descends into set messages and list elements, and leaves optional fields out", () => {
    const list = create(ListTasksResponseSchema, {
      tasks: [{ id: "t1", status: {} }],
      nextPageToken: "n",
      pageSize: 1,
      totalSize: 2,
    });
    expect(encodeResponse(listTasks, list, { emitRequired: true })).toEqual({
      tasks: [{ id: "t1", status: { state: "TASK_STATE_UNSPECIFIED" } }],
      nextPageToken: "n",
      pageSize: 1,
      totalSize: 2,
    });
  });

  test("an unset REQUIRED message stays unset (there is no default to write)", () => {
    const task = create(TaskSchema, { id: "t1" });
    expect(encodeResponse(getTask, task, { emitRequired: true })).toEqual({ id: "t1" });
    const done = create(TaskSchema, { id: "t1", status: { state: TaskState.COMPLETED } });
    expect(encodeResponse(getTask, done, { emitRequired: true })).toEqual({
      id: "t1",
      status: { state: "TASK_STATE_COMPLETED" },
    });
  });
});

test("emitRequired reaches into a set oneof member (SendMessageResponse.task)", () => {
  const send = A2AServiceRoutes.find((r) => r.rpc === "sendMessage")!;
  const res = create(send.output, { payload: { case: "task", value: { id: "t1", status: {} } } });
  expect(encodeResponse(send, res, { emitRequired: true })).toEqual({
    task: { id: "t1", status: { state: "TASK_STATE_UNSPECIFIED" } },
  });
});
