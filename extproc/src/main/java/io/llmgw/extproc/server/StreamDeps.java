package io.llmgw.extproc.server;

import io.llmgw.extproc.observe.EppMetrics;
import io.llmgw.extproc.routing.RequestRouter;
import io.llmgw.extproc.state.Datastore;

/** What every ext_proc stream shares. */
public record StreamDeps(RequestRouter router, Datastore datastore, EppMetrics metrics, int maxBodyBytes) {}
