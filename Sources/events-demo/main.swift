import Events
print("swift-events demo")
