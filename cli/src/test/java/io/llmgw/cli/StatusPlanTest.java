package io.llmgw.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.api.PoolKey;
import io.llmgw.api.RouteKey;
import io.llmgw.extproc.capacity.core.Move;
import io.llmgw.extproc.capacity.core.Plan;
import io.llmgw.extproc.capacity.core.PoolPlan;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Issue 52: {@code ./llmgw status} prints the capacity plan in words, with the moves and what they save. */
class StatusPlanTest {
  @Test
  void eachPoolsPlanAndEachMoveOnALine() {
    PoolKey small = new PoolKey("default", "small");
    PoolKey large = new PoolKey("default", "large");
    Plan plan = new Plan(List.of(new PoolPlan(small, 2, 2, 38, 5, 5, 5.0, "+3 pods: 38.0 req/s at 10.0 req/s per pod"),
        new PoolPlan(large, 3, 3, 10, 3, 3, 12.0, "3 pods: 10.0 req/s")),
        List.of(new Move(new RouteKey("default", "summaries"), large, small, 0.4, 3.1),
            new Move(new RouteKey("default", "sql"), large, small, 0.1, Double.NaN)),
        14.0, 17.0);
    StringWriter out = new StringWriter();
    StatusCommand.printPlan(plan, new PrintWriter(out, true));
    assertThat(out.toString()).contains("CAPACITY PLAN: pods cost 14.00/h now, 17.00/h as planned",
        "  default/small: +3 pods: 38.0 req/s at 10.0 req/s per pod",
        "  moving 40 % of default/summaries from default/large to default/small saves 3.10/h once default/small has "
            + "room",
        "  moving 10 % of default/sql from default/large to default/small once default/small has room");
    StringWriter none = new StringWriter();
    StatusCommand.printPlan(Plan.EMPTY, new PrintWriter(none, true));
    assertThat(none.toString()).isEmpty();
  }
}
