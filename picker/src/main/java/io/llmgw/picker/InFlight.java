package io.llmgw.picker;

/** Requests the gateway routed to one endpoint whose response has not ended, in total and per model. */
public interface InFlight {
  InFlight NONE = new InFlight() {
    @Override
    public int forModel(String model) {
      return 0;
    }

    @Override
    public int total() {
      return 0;
    }
  };

  int forModel(String model);

  int total();
}
